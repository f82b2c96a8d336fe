# The steps of deploy/install-pi.sh that only write the files they are given, sourced by it
# (and by tests/service/test_deploy.py, on files in a temporary folder).

# make_journal_key FILE USER: a random secret for the journal's seals (HMAC-SHA256,
# docs/service.md "Seals") in FILE, readable by USER and root alone. An existing FILE is
# kept as it is: a new key would not verify the entries sealed with the old one.
make_journal_key() {
  local file="$1" user="$2" secret
  if [ -e "$file" ]; then
    echo "kept the journal key $file (an existing key is never replaced)"
    return 0
  fi
  secret="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
  # umask: never readable by others, not even for a moment; noclobber: a file made meanwhile
  # is not overwritten
  (umask 077 && set -o noclobber && printf '%s\n' "$secret" >"$file")
  chown "$user:" "$file"
  chmod 400 "$file"
  echo "made the journal key $file: a random secret that $user and root alone can read."
  echo "  Keep a copy where the organiser verifies, out of the players' reach: without it"
  echo "  \`station journal verify --key COPY\` cannot check the seals, and nobody can make it again."
}

# write_config EXAMPLE CONFIG [KEY_FILE]: CONFIG from the example, the journal in
# /var/lib/station, sealed with KEY_FILE when one is given. An existing CONFIG is kept.
write_config() {
  local example="$1" config="$2" key="${3:-}"
  if [ -f "$config" ]; then
    if [ -n "$key" ] && ! grep -q "^key_file = \"$key\"" "$config"; then
      echo "kept $config as it is: to seal with the key, set key_file = \"$key\" under [journal]"
    fi
    return 0
  fi
  local edits=(-e 's|^path = "~/.local/share/station/journal.sqlite"|path = "/var/lib/station/journal.sqlite"|')
  [ -z "$key" ] || edits+=(-e "s|^key_file = \"\"|key_file = \"$key\"|")
  sed "${edits[@]}" "$example" >"$config"
  echo "wrote $config: set the camera, laser, pins and actions there"
  [ -z "$key" ] || echo "  its journal is sealed with $key (key_file under [journal])"
}
