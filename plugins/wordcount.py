#!/usr/bin/env python3
"""actorcrawl external processor: how many words a page has, and a crude
guess of its language.

One item per HTML page, kind "wordcount" (or the name the config gives it):
  {"words": 1234, "language": "en", "stopwords": 210}
The text is what a reader sees: tags, <script>, <style> and <template>
dropped. The language is the one whose common words ("the", "und", "les",
...) are most frequent in it, "" when fewer than 5 of them occur: a guess
for sorting pages, not a classifier.

Config:
  processors:
    - html_links
    - {name: wordcount, exec: [python3, plugins/wordcount.py], instances: 2}
"""

import re
from collections import Counter
from html.parser import HTMLParser

import actorcrawl_plugin

STOPWORDS = {
    "en": "the and of to in is that it for was on are with as be this by at not or from have but",
    "de": "der die und das ist nicht sie ich mit den auf des ein eine dem zu sich auch von wird",
    "fr": "le la les et des est une que pour dans pas qui sur du au avec ce il sont plus",
    "es": "el la los las que del por una con para como pero sus al es se lo más fue",
    "it": "il che di della per una sono non con gli del le alla anche come più questo",
    "nl": "de het een en van is dat niet op te zijn voor met die aan er maar ook",
    "pt": "os as que não uma com para por mais dos das como mas foi ao ele sua",
}
STOPWORD_SETS = {lang: set(words.split()) for lang, words in STOPWORDS.items()}
MIN_STOPWORDS = 5
WORD = re.compile(r"\w+", re.UNICODE)
HIDDEN = {"script", "style", "template", "noscript"}


class VisibleText(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in HIDDEN:
            self._hidden += 1

    def handle_endtag(self, tag):
        if tag in HIDDEN and self._hidden > 0:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def guess_language(words):
    hits = Counter()
    for word in words:
        for lang, stopwords in STOPWORD_SETS.items():
            if word in stopwords:
                hits[lang] += 1
    if not hits:
        return "", 0
    lang, count = hits.most_common(1)[0]
    return (lang if count >= MIN_STOPWORDS else ""), count


def process(page):
    if page.content_type not in ("text/html", "application/xhtml+xml"):
        return None
    parser = VisibleText()
    parser.feed(page.body)
    parser.close()
    words = [w.lower() for w in WORD.findall(" ".join(parser.parts)) if not w.isdigit()]
    language, stopwords = guess_language(words)
    return [{"words": len(words), "language": language, "stopwords": stopwords}]


if __name__ == "__main__":
    actorcrawl_plugin.run(process)
