"""Korean particles after a filled-in value: 은/는, 이/가, 을/를, 과/와 and (으)로 follow the
last sound of the word as it is read aloud.

A catalogue's translation of a printed line cannot fix the particle after a placeholder: the
value is filled in later, and "{0}로" is right for 2 (이로) but wrong for 0.6 (영점육으로).  The
translation writes the pair instead, right after the placeholder (``{0}(으)로``,
``{0}은(는)``, ``({0}, {1})과(와)``), and :func:`fill_particles` picks the particle once the
value is known (:func:`booktools.i18n.outputs.output_fill` calls it).

How a value is read (:func:`final_sound`):

* a number in Sino-Korean: its last digit (1 일, 3 삼, 6 육, 0 영; a decimal is read digit by
  digit after the point, 0.6 영점육), or the last place word of a round number (10 십,
  100 백, 1,000 천, 20,000 이만, 300,000,000 삼억);
* a unit after a number by its Korean reading (% 퍼센트, bits 비트, 개, …);
* a name with a number, the number in English (GPT-1 원, GPT-2 투, GPT-3 스리);
* letters by their names when they are capitals (GPT 티, LN 엔), by the usual loanword
  ending otherwise (LayerNorm 놈, softmax 스, token 큰, XLNet 넷);
* a Hangul word by its last syllable.

Closing brackets and quotes after the word are skipped: "(1, 0, 1)과" reads the last 1.
"""

from __future__ import annotations

import re

__all__ = ["PAIRS", "MARKER", "final_sound", "korean_particle", "fill_particles"]

#: Each pair as (after a final consonant, after a vowel); (으)로 also takes 로 after ㄹ.
PAIRS = {
    "은/는": ("은", "는"),
    "이/가": ("이", "가"),
    "을/를": ("을", "를"),
    "과/와": ("과", "와"),
    "으로/로": ("으로", "로"),
}
_SPELLINGS = {
    **{k: k for k in PAIRS},
    **{f"{b}/{a}": f"{a}/{b}" for a, b in (k.split("/") for k in PAIRS)},
    "은(는)": "은/는",
    "는(은)": "은/는",
    "이(가)": "이/가",
    "가(이)": "이/가",
    "을(를)": "을/를",
    "를(을)": "을/를",
    "과(와)": "과/와",
    "와(과)": "과/와",
    "(으)로": "으로/로",
}
#: A pair written in a translation right after a placeholder (and closing brackets).
MARKER = re.compile(
    r"(\{\d+\}[)\]'\"”’」』]*)(은\(는\)|는\(은\)|이\(가\)|가\(이\)|을\(를\)|를\(을\)"
    r"|과\(와\)|와\(과\)|\(으\)로)"
)

#: The final consonant (jongseong) of a reading: "" (a vowel), "ㄹ", or another consonant.
_DIGITS = {
    "0": "ㅇ",  # 영
    "1": "ㄹ",  # 일
    "2": "",  # 이
    "3": "ㅁ",  # 삼
    "4": "",  # 사
    "5": "",  # 오
    "6": "ㄱ",  # 육
    "7": "ㄹ",  # 칠
    "8": "ㄹ",  # 팔
    "9": "",  # 구
}
_PLACES = {1: "ㅂ", 2: "ㄱ", 3: "ㄴ"}  # 십, 백, 천
_MYRIADS = {1: "ㄴ", 2: "ㄱ", 3: "", 4: "ㅇ"}  # 만, 억, 조, 경
#: English cardinals, by their last word as Korean writes it (one 원, seven 세븐, ten 텐).
_ENGLISH = {
    0: "",  # 제로
    1: "ㄴ",  # 원
    2: "",  # 투
    3: "",  # 스리
    4: "",  # 포
    5: "",  # 파이브
    6: "",  # 식스
    7: "ㄴ",  # 세븐
    8: "",  # 에이트
    9: "ㄴ",  # 나인
    10: "ㄴ",  # 텐
    11: "ㄴ",  # 일레븐
    12: "",  # 트웰브
    **{n: "ㄴ" for n in range(13, 20)},  # -틴
}
#: Capital letters by their names (A 에이, L 엘, M 엠, N 엔, R 알).
_LETTERS = {
    **dict.fromkeys("ABCDEFGHIJKOPQSTUVWXYZ", ""),
    "L": "ㄹ",
    "M": "ㅁ",
    "N": "ㄴ",
    "R": "ㄹ",
}
#: Units and words read after a number, and names whose reading the rules would miss.
_WORDS = {
    "%": "",  # 퍼센트
    "bit": "",
    "bits": "",  # 비트
    "byte": "",
    "bytes": "",  # 바이트
    "nat": "",
    "nats": "",  # 내트
    "ms": "",  # 밀리초
    "s": "",  # 초
    "xlnet": "ㅅ",  # 엑스엘넷
}
_CLOSERS = ")]}'\"”’」』"


def _hangul(char: str) -> str | None:
    """The final consonant of a Hangul syllable ("" for none), or None for another char."""
    code = ord(char) - 0xAC00
    if not 0 <= code < 11172:
        return None
    return " ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"[code % 28].strip()


def _sino_korean(digits: str) -> str:
    """The final consonant of a number read in Sino-Korean: ``"20000"`` (이만) -> ``"ㄴ"``."""
    if "." in digits:
        return _DIGITS[digits.rstrip(".")[-1]]
    n = int(digits)
    if n == 0:
        return _DIGITS["0"]
    myriads = 0
    while n % 10_000 == 0:
        n //= 10_000
        myriads += 1
    if myriads and n % 10_000 == 0:  # beyond 경: read the last digit
        return _DIGITS[digits[-1]]
    if myriads:
        return _MYRIADS.get(myriads, _DIGITS[digits[-1]])
    group = n % 10_000
    for place in (0, 1, 2, 3):
        digit = group // 10**place % 10
        if digit:
            return _DIGITS[str(digit)] if place == 0 else _PLACES[place]
    return _DIGITS["0"]  # unreachable: the group is not 0


def _english_number(n: int) -> str:
    """The final consonant of an English cardinal (a model's number: GPT-3 스리)."""
    last_two = n % 100
    if last_two == 0:
        return ""  # zero, hundred, thousand: 제로, 헌드레드, 사우전드
    if last_two < 20:
        return _ENGLISH[last_two]
    if last_two % 10 == 0:
        return ""  # twenty ... ninety: -티
    return _ENGLISH[last_two % 10]


def _latin(word: str) -> str:
    """The final consonant of a word in Latin letters, read as Korean writes it."""
    lower = word.lower()
    if lower in _WORDS:
        return _WORDS[lower]
    if word.isupper() or len(word) == 1:
        return _LETTERS.get(word[-1].upper(), "")
    for ending, sound in (("ng", "ㅇ"), ("m", "ㅁ"), ("n", "ㄴ"), ("l", "ㄹ")):
        if lower.endswith(ending):
            return sound
    return ""  # -t 트, -k 크, -s 스, -r 어, -e …: no final consonant


def final_sound(word: str | int | float) -> str:
    """The final consonant of ``word`` read aloud in Korean: ``""`` after a vowel, ``"ㄹ"``
    after ㄹ, another jamo after another consonant (``"0.6"`` -> ``"ㄱ"``, 육)."""
    if isinstance(word, bool) or not isinstance(word, (str, int, float)):
        raise ValueError(f"word: expected a string or a number, got {word!r}")
    text = str(word).strip().rstrip(_CLOSERS).strip()
    if not text:
        raise ValueError(f"word: expected something to read, got {word!r}")
    last = _hangul(text[-1])
    if last is not None:
        return last
    name = re.search(r"([A-Za-z]+)[-‑]?(\d+)$", text)
    if name and not re.search(r"[eE]$", name.group(1)):
        return _english_number(int(name.group(2)))
    number = re.search(r"(\d[\d,]*(?:\.\d*)?|\.\d+)\s*([^\d\s]*)$", text)
    if number:
        unit = number.group(2)
        if unit:
            return final_sound(unit) if not unit.isascii() else _latin_unit(unit)
        return _sino_korean(number.group(1).replace(",", ""))
    letters = re.search(r"([A-Za-z]+)[^A-Za-z]*$", text)
    if letters:
        return _latin(letters.group(1))
    if text[-1] == "%":
        return _WORDS["%"]
    raise ValueError(
        f"word: expected letters, digits or Hangul at its end, got {word!r}"
    )


def _latin_unit(unit: str) -> str:
    if unit in _WORDS:
        return _WORDS[unit]
    letters = re.sub(r"[^A-Za-z]", "", unit)
    return _latin(letters) if letters else ""


def korean_particle(word: str | int | float, pair: str) -> str:
    """The particle of ``pair`` (``"은/는"``, ``"이/가"``, ``"을/를"``, ``"과/와"``,
    ``"(으)로"``, in either order or written ``"은(는)"``) that follows ``word`` read aloud:
    ``korean_particle(64, "은/는")`` -> ``"는"`` (육십사), ``korean_particle("0.6", "(으)로")``
    -> ``"으로"`` (영점육), ``korean_particle("GPT-1", "은/는")`` -> ``"은"`` (지피티 원)."""
    key = _SPELLINGS.get(pair) if isinstance(pair, str) else None
    if key is None:
        raise ValueError(f"pair: expected one of {sorted(_SPELLINGS)}, got {pair!r}")
    consonant, vowel = PAIRS[key]
    sound = final_sound(word)
    if key == "으로/로":
        return consonant if sound not in ("", "ㄹ") else vowel
    return consonant if sound else vowel


def fill_particles(translation: str, fill) -> str:
    """``fill(translation)`` (which puts the values in the placeholders) with each pair
    written right after a placeholder replaced by the particle its value takes:
    ``"{0}(으)로"`` filled with ``0.6`` -> ``"0.6으로"``; ``"GPT-{0}은(는)"`` with ``3`` ->
    ``"GPT-3는"`` (the whole word before the pair is read)."""
    marked = MARKER.sub(
        lambda m: f"{m.group(1)}\x01{_SPELLINGS[m.group(2)]}\x01", translation
    )
    filled = fill(marked)

    def pick(m: re.Match[str]) -> str:
        return m.group(1) + korean_particle(m.group(1), m.group(2))

    return re.sub(r"([^\s\x01]+)\x01([^\s\x01]+)\x01", pick, filled)
