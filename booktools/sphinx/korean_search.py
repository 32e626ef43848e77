"""Korean search for the Korean book (:mod:`booktools.sphinx.i18n` registers it).

Sphinx has no Korean search language.  :class:`SearchKorean` indexes and searches a Hangul word
without its particle (조사: 트랜스포머의 -> 트랜스포머, :func:`korean_stem`), with the same rule
in the search page's JavaScript; English words are stemmed as in the English book.
"""

from __future__ import annotations

import json
import re

from sphinx.search.en import SearchEnglish

__all__ = ["PARTICLES", "korean_stem", "SearchKorean"]

#: Particles (조사) that follow a noun, longest first: 트랜스포머의, 어텐션에서, 토큰으로.
PARTICLES = (
    "에서는",
    "에서도",
    "으로는",
    "에게서",
    "에서",
    "으로",
    "에는",
    "에도",
    "까지",
    "부터",
    "처럼",
    "보다",
    "이나",
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "의",
    "에",
    "로",
    "와",
    "과",
    "도",
    "만",
)
_HANGUL_WORD = re.compile(r"^[\uac00-\ud7a3]+$")


def korean_stem(word: str) -> str:
    """A Hangul word without its trailing particle, if at least two syllables are left
    (트랜스포머의 -> 트랜스포머, 가중치를 -> 가중치; 모델 and 이 stay)."""
    if _HANGUL_WORD.match(word):
        for particle in PARTICLES:
            if word.endswith(particle) and len(word) - len(particle) >= 2:
                return word[: -len(particle)]
    return word


_JS_KOREAN = """
var PorterStemmer = Stemmer;
Stemmer = function () {
  var porter = new PorterStemmer();
  var particles = %s;
  this.stemWord = function (w) {
    if (/^[\\uac00-\\ud7a3]+$/.test(w)) {
      for (var i = 0; i < particles.length; i++) {
        var p = particles[i];
        if (w.length - p.length >= 2 && w.slice(-p.length) === p) return w.slice(0, -p.length);
      }
      return w;
    }
    return porter.stemWord(w);
  };
};
""" % json.dumps(PARTICLES, ensure_ascii=False)


class SearchKorean(SearchEnglish):
    """Sphinx has no Korean search language: Hangul words are indexed and searched without
    their particle (:func:`korean_stem`, and the same rule in the page's JavaScript), other
    words as in English."""

    lang = "ko"
    language_name = "Korean"
    js_stemmer_code = SearchEnglish.js_stemmer_code + _JS_KOREAN

    def stem(self, word: str) -> str:
        word = word.lower()
        return korean_stem(word) if _HANGUL_WORD.match(word) else super().stem(word)
