"""Security headers on every kind of response, read with urllib (no browser)."""

import re
import urllib.error
import urllib.request
from html.parser import HTMLParser

import pytest


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a redirect is answered as it is, not followed


OPENER = urllib.request.build_opener(NoRedirects)


def fetch(server, path: str):
    """Status, headers and body of a GET, whatever the status."""
    try:
        with OPENER.open(server.base_url + path, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


class StylesheetLinks(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "link" and attributes.get("rel") == "stylesheet":
            self.hrefs.append(attributes["href"])


def stylesheet_url(server) -> str:
    status, _, body = fetch(server, "/surveys")
    assert status == 200
    links = StylesheetLinks()
    links.feed(body.decode())
    assert len(links.hrefs) == 1, f"one stylesheet: {links.hrefs}"
    assert re.fullmatch(r"/styles\.css\?v=\w+", links.hrefs[0]), f"a versioned stylesheet URL: {links.hrefs[0]}"
    return links.hrefs[0]


RESPONSES = {
    "page": ("/surveys", {200}),
    "error page": ("/surveys/no-such-id", {404}),
    "method not allowed": ("/surveys/food-001/answers", {405}),  # a form opened with GET
    "redirect": ("/", {301, 302, 303, 307, 308}),
    "stylesheet": (None, {200}),
}


def directives(policy: str) -> dict[str, list[str]]:
    parsed = {}
    for directive in policy.split(";"):
        name, *values = directive.split()
        parsed[name.lower()] = values
    return parsed


@pytest.mark.parametrize("kind", list(RESPONSES))
def test_security_headers(server, kind):
    path, statuses = RESPONSES[kind]
    path = path or stylesheet_url(server)
    status, headers, _ = fetch(server, path)
    assert status in statuses, f"GET {path}: {status}"
    if kind == "redirect":
        assert headers["Location"].endswith("/surveys"), headers["Location"]

    policy = headers.get("Content-Security-Policy", "")
    csp = directives(policy)
    problems = [
        problem for problem, failed in [
            ("CSP default-src 'self'", "'self'" not in csp.get("default-src", [])),
            ("CSP frame-ancestors 'none'", csp.get("frame-ancestors") != ["'none'"]),
            ("CSP form-action 'self'", "'self'" not in csp.get("form-action", [])),
            ("CSP base-uri 'none'", csp.get("base-uri") != ["'none'"]),
            ("CSP object-src 'none'", csp.get("object-src") != ["'none'"]),
            ("a CSP with no 'unsafe-inline' or 'unsafe-eval'", "unsafe-inline" in policy or "unsafe-eval" in policy),
            ("X-Content-Type-Options: nosniff", headers.get("X-Content-Type-Options") != "nosniff"),
            ("a Referrer-Policy", headers.get("Referrer-Policy", "") in ("", "unsafe-url", "no-referrer-when-downgrade")),
            ("X-Frame-Options: DENY", (headers.get("X-Frame-Options") or "").upper() != "DENY"),
        ] if failed
    ]
    if kind == "stylesheet":
        max_age = re.search(r"max-age=(\d+)", headers.get("Cache-Control", ""))
        if not max_age or int(max_age.group(1)) < 30 * 86_400:
            problems.append("a long Cache-Control max-age (30 days or more)")
        if not headers.get("ETag"):
            problems.append("an ETag")
        if not headers.get("Content-Type", "").startswith("text/css"):
            problems.append("Content-Type text/css")
    assert not problems, f"GET {path} ({status}) lacks {', '.join(problems)}; its headers:\n{headers}"
