"""Scrapy spider of the end-to-end benchmark: follows every link within the
bench hosts, like actorcrawl and wget do.

  scrapy runspider bench/scrapy_spider.py -a web=WEB_DIR -a out=OUT_DIR

Politeness is off as for the other tools (64 requests in flight, no delay,
no AutoThrottle, robots.txt ignored). Each page yields one item (url, title,
description) exported to /dev/null, so item handling is paid for but nothing
is kept. The URL of each 200 response is appended to OUT/urls.txt and the
crawl's stats go to OUT/stats.json, for bench/benchtool.py.
"""
import json
import os

import scrapy


class BenchSpider(scrapy.Spider):
    name = "bench"
    custom_settings = {
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 64,
        "CONCURRENT_REQUESTS_PER_IP": 0,
        "DOWNLOAD_DELAY": 0,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "AUTOTHROTTLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "COOKIES_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "DEPTH_LIMIT": 0,
        "RETRY_TIMES": 3,
        "DOWNLOAD_TIMEOUT": 15,
        "LOG_LEVEL": "INFO",
        "USER_AGENT": "scrapy-bench",
        "FEEDS": {"file:///dev/null": {"format": "jsonlines"}},
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    }

    def __init__(self, web=None, out=".", **kwargs):
        super().__init__(**kwargs)
        meta = json.load(open(os.path.join(web, "web.json")))
        # Scrapy's offsite filter takes host names; the bench hosts are addresses.
        self.allowed_domains = list(meta["hosts"])
        self.start_urls = [meta["seed_url"]]
        self.out = out
        self.urls_file = open(os.path.join(out, "urls.txt"), "w")

    def parse(self, response):
        if response.status == 200:
            self.urls_file.write(response.url + "\n")
        yield {
            "url": response.url,
            "title": response.css("title::text").get(),
            "description": response.css('meta[name="description"]::attr(content)').get(),
        }
        for href in response.css("a::attr(href)").getall():
            if href.startswith(("mailto:", "javascript:", "tel:")):
                continue
            yield response.follow(href, callback=self.parse)

    def closed(self, reason):
        self.urls_file.close()
        stats = self.crawler.stats.get_stats()
        with open(os.path.join(self.out, "stats.json"), "w") as f:
            json.dump({"reason": reason, "urls_file": os.path.join(self.out, "urls.txt"),
                       "stats": {k: (v if isinstance(v, (int, float, str)) else str(v))
                                 for k, v in stats.items()}}, f, indent=1)
