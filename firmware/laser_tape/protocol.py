"""The tape protocol (firmware/PROTOCOL.md): ASCII lines, each with a sequence number and a CRC.

Tape to station: `SEQ KIND FIELD... *CRC`, CRC-16/CCITT-FALSE over the bytes before " *",
as four upper-case hex digits. Station to tape: `[SEQ] VERB [ARG...] [*CRC]`; sequence number
and CRC are optional so that a person can type commands into a terminal.
"""

MAX_COMMAND = 80        # longest host command line, in bytes
SEQ_LIMIT = 65536       # sequence numbers run 0..65535, then wrap to 0


def _crc_table():
    table = []
    for high in range(256):
        crc = high << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return table


_CRC_TABLE = _crc_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial 0xFFFF, MSB first, no final XOR.
    A byte at a time from a 256-entry table (about 1 KB of RAM)."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[(crc >> 8) ^ byte]
    return crc


def format_line(seq, fields):
    """One tape-to-station line, newline included."""
    body = "%d %s" % (seq, " ".join(fields))
    return "%s *%04X\n" % (body, crc16(body.encode()))


def printable(text, limit=24, lowest="!"):
    """Untrusted text made safe for a line: printable ASCII (from `lowest`; "!" keeps spaces
    out), no "*", at most `limit` characters; spaces single and inside (a line's fields are
    one space apart)."""
    out = ""
    for ch in text[:limit]:
        out += ch if lowest <= ch <= "~" and ch != "*" else "?"
    return " ".join(out.split()) or "-"


class Command:
    """A parsed host command: `seq` is None when the host sent none."""

    def __init__(self, seq, verb, args):
        self.seq = seq
        self.verb = verb
        self.args = args

    def origin(self):
        return "-" if self.seq is None else str(self.seq)


class BadCommand(Exception):
    """A host line the tape cannot use; `origin` is its sequence number when one was read."""

    def __init__(self, origin, reason):
        Exception.__init__(self, reason)
        self.origin = origin
        self.reason = reason


def parse_command(raw):
    """Bytes of one host line (no terminator) -> Command, or None for a blank line.

    Raises BadCommand for anything malformed; never anything else.
    """
    for byte in raw:
        if byte < 0x20 or byte > 0x7E:
            if byte != 0x09:
                raise BadCommand("-", "line has a byte that is not printable ASCII (0x%02X)" % byte)
    text = raw.decode().replace("\t", " ").strip()
    if not text:
        return None
    star = text.rfind("*")
    crc_text = None
    if star >= 0:
        crc_text = text[star + 1:].strip()
        text = text[:star].rstrip()
    tokens = text.split()
    seq = None
    if tokens and tokens[0].isdigit():
        seq = int(tokens[0])
        tokens = tokens[1:]
        if seq >= SEQ_LIMIT:
            raise BadCommand("-", "sequence number %d is over 65535" % seq)
    origin = "-" if seq is None else str(seq)
    if crc_text is not None:
        if len(crc_text) != 4 or not _is_hex(crc_text):
            raise BadCommand(origin, "CRC must be 4 hex digits after '*'")
        expected = crc16(text.encode())
        if int(crc_text, 16) != expected:
            raise BadCommand(origin, "CRC mismatch: line says %s, body gives %04X"
                             % (crc_text.upper(), expected))
    if not tokens:
        raise BadCommand(origin, "no command; try HELP")
    return Command(seq, tokens[0].upper(), tokens[1:])


def _is_hex(text):
    for ch in text:
        if ch not in "0123456789abcdefABCDEF":
            return False
    return True


class LineReader:
    """Collects host bytes into lines; a line over the limit comes out as None."""

    def __init__(self, limit=MAX_COMMAND):
        self._limit = limit
        self._buf = b""
        self._overflow = False

    def feed(self, data):
        lines = []
        for i in range(len(data)):
            byte = data[i:i + 1]
            if byte == b"\n" or byte == b"\r":
                if self._overflow:
                    lines.append(None)
                elif self._buf:
                    lines.append(self._buf)
                self._buf = b""
                self._overflow = False
            elif not self._overflow:
                if len(self._buf) >= self._limit:
                    self._overflow = True
                    self._buf = b""
                else:
                    self._buf += byte
        return lines
