import sys

import pytest

from station.service.memory import release_freed_memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_freed_memory_is_given_back_on_linux():
    # Raspberry Pi OS and the CI machines run glibc, whose malloc_trim the station calls.
    import platform
    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert release_freed_memory() is True
