"""A peer for benchmark figure P1-peer (Scripts/benchmark.py): the survey list page (GET /surveys)
of PointApp written the way a small Python site on files would be, with Flask and Jinja2, to show
what our server's page rate is worth beside an ordinary stack on the same machine.

It is not part of the site and serves nothing else. Per request it does what our server does for
an existing user's GET /surveys:

  - reads the session cookie (pointapp_session=<id>.<mark>, the mark an HMAC of the id, as ours),
  - reads that visitor's session record, then their user state, from JSON files in its own data
    folder (a new visitor, or a cookie it did not issue, gets both made and a Set-Cookie),
  - computes the open surveys of the catalog (loaded once at start, its dates relative to the
    day the data folder was first used, as ours seeds them), filtered by ?category= and sorted by
    ?sort= (newest by default), those that closed lately listed apart (受付終了),
  - renders Jinja2 templates (autoescape on): a layout with blocks, the list, and an included
    card template per survey, mirroring our markup so that the page is about the same size.

Nothing rendered is kept between requests. The peer takes no answers, so no quota place is ever
taken here and the user state never changes after it is made (but the session's last-seen time,
written again at most hourly, as ours).

Run it with gunicorn (pip install -r Scripts/peer/requirements.txt):
    PEER_DATA=/tmp/peer-data python3 -m gunicorn -w 2 -b 127.0.0.1:8098 --chdir Scripts/peer app:app
PEER_DATA is its data folder (made if missing; by default pointapp-peer-data in the temporary
folder).
"""
import datetime
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import time

from flask import Flask, abort, make_response, render_template, request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.environ.get("PEER_DATA") or os.path.join(tempfile.gettempdir(), "pointapp-peer-data")

COOKIE = "pointapp_session"
TOKYO = datetime.timezone(datetime.timedelta(hours=9))  # Japan keeps no summer time
DAY = 86_400
NEW_FOR = 3 * DAY  # a survey is 新着 this long after it is published
CLOSED_SHOWN_FOR = 7 * DAY  # a survey past its deadline is listed as closed this long
TOUCH_INTERVAL = 60 * 60  # how stale a session's lastSeen may be before a request writes it

# The names shown for the categories and the sorts, in their order (SurveyCategory, SurveySort).
CATEGORIES = {
    "food": "食品・飲料", "lifestyle": "暮らし", "travel": "旅行・おでかけ", "technology": "IT・家電",
    "money": "マネー", "entertainment": "エンタメ", "health": "健康・美容",
}
SORTS = {"newest": "新着順", "reward": "ポイント順", "efficiency": "1分あたり"}


def write_file(path, data):
    """Writes `data` (bytes) to `path` durably: a temporary file, fsync, rename."""
    temporary = "%s.%s.tmp" % (path, secrets.token_hex(4))
    with open(temporary, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def create_once(path, data):
    """Makes `path` with `data` unless it exists; its contents either way. The two workers start
    at once: a link made from a complete file is either the first or refused."""
    if not os.path.exists(path):
        temporary = "%s.%s.tmp" % (path, secrets.token_hex(4))
        with open(temporary, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        os.unlink(temporary)
    with open(path, "rb") as f:
        return f.read()


# The data folder, its secret (signs the session cookies) and the moment it was first used.
for folder in ("sessions", "users"):
    os.makedirs(os.path.join(DATA, folder), exist_ok=True)
SECRET = create_once(os.path.join(DATA, "secret.key"), secrets.token_bytes(32))
SEEDED_AT = float(create_once(os.path.join(DATA, "seeded-at.txt"), b"%f" % time.time()))


def load_catalog():
    """The shipped catalog, its dates made absolute: days from the start of the seeding day in
    Tokyo (publishedDaysAgo, closesInDays), as our server seeds it."""
    with open(os.path.join(ROOT, "Sources/PointApp/Resources/catalog.json"), encoding="utf-8") as f:
        entries = json.load(f)
    seeded = datetime.datetime.fromtimestamp(SEEDED_AT, TOKYO)
    day = seeded.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    for survey in entries:
        survey["publishedAt"] = day - survey["publishedDaysAgo"] * DAY
        survey["expiresAt"] = day + survey["closesInDays"] * DAY if "closesInDays" in survey else None
    return entries


CATALOG = load_catalog()

with open(os.path.join(ROOT, "Public/styles.css"), "rb") as f:
    STYLESHEET = "/styles.css?v=" + hashlib.sha256(f.read()).hexdigest()[:12]


def mark(session_id):
    return hmac.new(SECRET, b"issued " + session_id.encode(), hashlib.sha256).hexdigest()[:16]


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def session_path(session_id):
    return os.path.join(DATA, "sessions", session_id + ".json")


def user_path(user_id):
    return os.path.join(DATA, "users", user_id + ".json")


def visitor(now):
    """The request's session id and user state; whether the response sets the cookie. A
    missing, malformed or unmarked cookie, or one whose records are gone, is a new visitor,
    whose records are made now."""
    raw = request.cookies.get(COOKIE, "")
    session_id, _, given = raw.partition(".")
    if len(session_id) == 32 and all(c in "0123456789abcdef" for c in session_id) and hmac.compare_digest(mark(session_id), given):
        session = read_json(session_path(session_id))
        if session is not None:
            state = read_json(user_path(session["user"]))
            if state is not None:
                if now - session["lastSeen"] > TOUCH_INTERVAL:
                    session["lastSeen"] = now
                    write_file(session_path(session_id), json.dumps(session).encode())
                return session_id, state, False
    session_id, user_id = secrets.token_hex(16), secrets.token_hex(16)
    state = {"balance": 0, "answered": [], "profile": None, "account": None, "flash": None}
    write_file(user_path(user_id), json.dumps(state).encode())
    write_file(session_path(session_id), json.dumps({"user": user_id, "lastSeen": now}).encode())
    return session_id, state, True


def eligibility(survey, profile, now):
    """Whether the user may answer a targeted survey: "eligible", "needsProfile" (no profile
    yet) or "outside" (Targeting.eligibility: the age is the one reached in this year in Tokyo)."""
    targeting = survey.get("targeting")
    if not targeting:
        return "eligible"
    if profile is None:
        return "needsProfile"
    age = datetime.datetime.fromtimestamp(now, TOKYO).year - profile["birthYear"]
    if "minAge" in targeting and age < targeting["minAge"]:
        return "outside"
    if "maxAge" in targeting and age > targeting["maxAge"]:
        return "outside"
    if "genders" in targeting and profile["gender"] not in targeting["genders"]:
        return "outside"
    if "prefectures" in targeting and profile["prefecture"] not in targeting["prefectures"]:
        return "outside"
    return "eligible"


def remaining_places(survey):
    """Its quota's places not taken (None: no quota). The peer takes no answers: none is taken."""
    quota = survey.get("quota")
    return max(0, quota["target"] - quota["collected"]) if quota else None


def closure(survey, now):
    """Why it takes no more answers: its deadline first, then a full quota; None when open."""
    if survey["expiresAt"] is not None and now >= survey["expiresAt"]:
        return "deadlinePassed"
    if remaining_places(survey) == 0:
        return "full"
    return None


def efficiency(survey):
    return survey["reward"] / survey["estimatedMinutes"] if survey["estimatedMinutes"] > 0 else 0.0


SORT_KEYS = {
    "newest": lambda s: (-s["publishedAt"], s["id"]),
    "reward": lambda s: (-s["reward"], s["id"]),
    "efficiency": lambda s: (-efficiency(s), s["id"]),
}


def day(timestamp):
    """A date as the page shows it: 2027年1月15日 (Tokyo)."""
    date = datetime.datetime.fromtimestamp(timestamp, TOKYO)
    return "%d年%d月%d日" % (date.year, date.month, date.day)


def row(survey, answered, closed=False, is_new=False):
    """One card's context (Pages.surveyRow and its summary)."""
    card = {
        "href": "/surveys/" + survey["id"], "title": survey["title"], "category": CATEGORIES[survey["category"]],
        "reward": survey["reward"], "minutes": survey["estimatedMinutes"], "efficiency": "%.1f" % efficiency(survey),
        "question_count": len(survey["questions"]) + len((survey.get("screening") or {}).get("questions", [])),
        "has_screening": bool(survey.get("screening")), "answered": answered, "closed": closed, "is_new": is_new,
        "expires": day(survey["expiresAt"] - 1) if survey["expiresAt"] is not None else None, "few_left": None,
    }
    quota, remaining = survey.get("quota"), remaining_places(survey)
    if not closed and quota and 0 < remaining <= max(1, min(quota["target"] // 10, 50)):
        card["few_left"] = remaining
    return card


def filters(category, sort):
    """The category and sort links, the current ones marked (Pages.surveyFilters)."""
    def href(category, sort):
        return "/surveys?" + ("category=%s&" % category if category else "") + "sort=" + sort
    categories = [{"title": "すべて", "href": href(None, sort), "selected": category is None}] + [
        {"title": title, "href": href(name, sort), "selected": category == name} for name, title in CATEGORIES.items()]
    sorts = [{"title": title, "href": href(category, name), "selected": sort == name} for name, title in SORTS.items()]
    return categories, sorts


app = Flask(__name__, template_folder=os.path.join(HERE, "templates"))  # .html: autoescaped
# The page ends with a newline, as ours; the partials drop theirs with a closing comment.
app.jinja_env.keep_trailing_newline = True


@app.get("/surveys")
def surveys():
    now = time.time()
    category, sort = request.args.get("category"), request.args.get("sort", "newest")
    if (category is not None and category not in CATEGORIES) or sort not in SORTS:
        abort(400)
    session_id, state, new = visitor(now)
    answered, profile = set(state["answered"]), state["profile"]
    open_surveys, closed, needs_profile = [], [], False
    for survey in CATALOG:
        if survey["publishedAt"] > now or (category and survey["category"] != category):
            continue
        why = closure(survey, now)
        fit = eligibility(survey, profile, now)
        if fit == "eligible":
            if why is None:
                open_surveys.append(survey)
            elif why == "full" or now - survey["expiresAt"] < CLOSED_SHOWN_FOR:
                closed.append(survey)
        elif fit == "needsProfile":
            needs_profile = needs_profile or why is None
    key = SORT_KEYS[sort]
    rows = [row(s, s["id"] in answered, is_new=now - s["publishedAt"] < NEW_FOR and s["id"] not in answered)
            for s in sorted(open_surveys, key=key)]
    closed_rows = [row(s, s["id"] in answered, closed=True) for s in sorted(closed, key=key)]
    categories, sorts = filters(category, sort)
    response = make_response(render_template(
        "surveys.html", stylesheet=STYLESHEET, balance=state["balance"], account=state["account"], flash=state["flash"],
        categories=categories, sorts=sorts, rows=rows, closed_rows=closed_rows, needs_profile=needs_profile))
    if new:
        response.set_cookie(COOKIE, "%s.%s" % (session_id, mark(session_id)), max_age=365 * DAY, path="/",
                            httponly=True, samesite="Lax")
    return response


@app.after_request
def headers(response):
    """The headers our pages carry."""
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Security-Policy"] = ("default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
                                                   "form-action 'self'; base-uri 'none'; object-src 'none'")
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Frame-Options"] = "DENY"
    return response
