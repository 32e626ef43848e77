"""The vendored corpus is the one the README describes (nanoGPT's shakespeare_char input)."""

import hashlib

from _chapters import ROOT


def test_tinyshakespeare_is_the_documented_file():
    raw = (ROOT / "data" / "tinyshakespeare.txt").read_bytes()
    assert hashlib.md5(raw).hexdigest() == "6fb458f1232090904fb40fe944165e91"
    text = raw.decode("utf-8")
    assert len(text) == 1_115_394 and len(set(text)) == 65
