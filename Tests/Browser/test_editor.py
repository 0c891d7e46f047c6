"""The survey editor across instances: an operator signs in on one instance, creates a survey
with a grid and a quota of 3, sees its mistakes, previews and publishes it; a user of another
instance on the same PostgreSQL database sees it within 5 seconds, registers there and answers
it; the operator reads the survey's dashboard and downloads its responses (CSV and JSON Lines),
which name the user by a pseudonym only, never by their email; then closes it early and within
5 seconds the user's list shows it 受付終了. Every console page is screenshotted and checked
with axe.

The two instances and their throwaway PostgreSQL cluster (Scripts/pgcluster.py) are this
module's own; the session's `server` keeps a data folder."""

import csv
import hashlib
import io
import json
import re
import shutil
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select

from helpers import Authenticator, Browser, points, sign_in_operator
from servers import REPO, Server, server_binary

EMAIL = "ops@example.jp"
PASSWORD = "correct horse battery"
# How long another instance may take to show what the console changed.
PROPAGATION = 5.0
POLL = 0.25
QUOTA = 3
REWARD = 40
# The user's account on the other instance: an email the export must never show.
USER_PASSWORD = "correct horse battery"
# The first question's choice the user picks, and the grid: its question, rows and scale as typed
# in the editor (the site numbers rows r1… and choices c1… in order), and the user's pick per row.
CHOICE = "毎日食べる"
GRID_QUESTION = "次の食品をどのくらい食べますか。"
GRID_ROWS = ("ごはん", "パン", "シリアル")
SCALE = {"c1": "よく食べる", "c2": "ときどき", "c3": "食べない"}
GRID_ANSWERS = {"r1": "c1", "r2": "c2", "r3": "c3"}
# The columns every export starts with, by code and Japanese heading.
EXPORT_CODES = ["respondent", "outcome", "version", "shown_at", "sent_at", "seconds", "flags", "points",
                "age_band", "gender", "prefecture"]
RESPONDENT = re.compile(r"r-[0-9a-f]{16}")


def import_pgcluster():
    """Scripts/pgcluster.py, leaving no __pycache__ in Scripts/."""
    sys.path.insert(0, str(REPO / "Scripts"))
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        import pgcluster
    finally:
        sys.dont_write_bytecode = writes
        sys.path.remove(str(REPO / "Scripts"))
    return pgcluster


@dataclass
class Instances:
    console: Server  # where the operator works
    site: Server  # where the user answers
    authenticator: Authenticator  # the operator's, enrolled at the first sign-in


@pytest.fixture(scope="module")
def instances(request):
    """Two instances on one fresh PostgreSQL database, with an operator; stopped at the end, each
    expected to exit cleanly on SIGTERM."""
    binary = server_binary(request.config)
    folder = Path(tempfile.mkdtemp(prefix="pointapp-editor-"))
    folder.chmod(0o755)  # PostgreSQL runs as `postgres` when we are root
    try:
        cluster = import_pgcluster().Cluster(folder / "postgres")
    except SystemExit as missing:  # pgcluster's word when PostgreSQL's server is not installed
        pytest.fail(str(missing), pytrace=False)
    servers: list[Server] = []
    try:
        url = cluster.start()
        # Started together, as a deployment does: they migrate the schema once between them.
        servers = [Server(binary, None, folder / f"instance-{name}.log", request.config.getoption("--faketime"),
                          database_url=url) for name in ("console", "site")]
        for server in servers:
            server.wait_until_healthy()
        servers[0].create_operator(EMAIL, PASSWORD)
        yield Instances(*servers, Authenticator(servers[0]))
        for server in servers:
            server.assert_alive()
    finally:
        try:
            statuses = {server.log.name: server.stop() for server in servers}
        finally:
            cluster.stop()
    for server in servers:
        assert statuses[server.log.name] == 0, \
            f"{server.log.name} exited with status {statuses[server.log.name]} on SIGTERM:\n{server.log_tail()}"
    shutil.rmtree(folder)


def test_a_survey_made_in_the_console_is_answered_and_closed_on_another_instance(devices, window, instances):
    console: Browser = devices(window, instances.console)
    user: Browser = devices(window, instances.site)
    title = f"朝ごはんの習慣について（{window}）"  # each window makes its own survey
    email = f"hanako-{window}@example.jp"  # and its own user

    sign_in(console, instances.authenticator)
    survey = create_survey_with_a_grid(console, title)
    preview_and_publish(console, user, survey, title)
    register_on_the_other_instance(user, email)
    answer_on_the_other_instance(user, survey, title)
    read_the_dashboard(console, survey, title)
    download_the_responses(console, survey, email)
    close_early(console, user, survey, title)
    for b in (console, user):
        b.assert_no_problems()
    for server in (instances.console, instances.site):
        server.assert_alive()


# The console.

def sign_in(console: Browser, authenticator: Authenticator):
    console.open("/admin", "admin-editor-login")
    console.expect(console.driver.current_url.endswith("/admin/login"), "/admin leads a signed-out browser to sign in")
    sign_in_operator(console, EMAIL, PASSWORD, authenticator, "admin-editor-surveys")
    console.expect(console.driver.current_url.endswith("/admin/surveys"), "signed in, the surveys")


def button(console: Browser, intent: str) -> WebElement:
    """The editor's first button of `intent` (save, preview, publish, add, …)."""
    return console.find(f"main form button[name=intent][value='{intent}']")


def fill(console: Browser, field: str, value: str):
    element = console.find(field)
    element.clear()
    element.send_keys(value)


def create_survey_with_a_grid(console: Browser, title: str) -> str:
    """A new draft, published at once with nothing filled in (its mistakes shown), then filled in
    with a grid added; its id."""
    console.follow(console.link("新しいアンケートを作成"), "admin-editor-new")
    found = re.search(r"/admin/surveys/(s-[0-9a-f]+)/edit$", console.driver.current_url)
    assert found, f"a new survey opens its editor, not {console.driver.current_url}"
    survey = found.group(1)
    publish_at, deadline = console.find("#f-publishAt").get_attribute("value"), console.find("#f-deadline").get_attribute("value")
    console.expect(bool(publish_at) and bool(deadline) and deadline > publish_at,
                   f"publication and deadline are filled in, the deadline later: {publish_at!r}, {deadline!r}")

    console.follow(button(console, "publish"), "admin-editor-mistakes")
    summary = console.find("main .error-summary")
    console.expect("タイトルを入力してください" in summary.text, f"the summary names the missing title: {summary.text!r}")
    title_errors = console.find_all("#f-title-error")
    console.expect(bool(title_errors) and title_errors[0].text == "タイトルを入力してください"
                   and console.find("#f-title").get_attribute("aria-invalid") == "true",
                   "the title's field shows its mistake")
    console.expect(console.driver.current_url.endswith(f"/admin/surveys/{survey}/edit"), "a draft with mistakes stays in the editor")

    fill(console, "#f-title", title)
    fill(console, "#f-description", "毎朝の食事について、簡単な質問にお答えください。")
    Select(console.find("#f-category")).select_by_value("food")
    fill(console, "#f-reward", str(REWARD))
    fill(console, "#f-minutes", "2")
    fill(console, "#f-quota", str(QUOTA))
    fill(console, "#f-q-0-text", "朝ごはんを食べますか。")
    fill(console, "#f-q-0-choices", f"{CHOICE}\nときどき食べる\n食べない")
    Select(console.find("#f-newKind")).select_by_value("grid")
    console.follow(button(console, "add"), "admin-editor-grid-added")
    console.expect(console.find("#f-title").get_attribute("value") == title, "adding a question keeps what was typed")
    console.expect(len(console.find_all("main .editor-question")) == 2 and bool(console.find_all("#f-q-1-rows")),
                   "the grid is the second question, with its rows")

    fill(console, "#f-q-1-text", GRID_QUESTION)
    fill(console, "#f-q-1-rows", "\n".join(GRID_ROWS))
    fill(console, "#f-q-1-choices", "\n".join(SCALE.values()))
    return survey


def card(console: Browser, survey: str) -> WebElement:
    """The survey's card in the console's list (the test goes on only with it)."""
    found = next((c for c in console.find_all("main .admin-survey") if survey in c.text), None)
    assert found, f"{console.page_name}: {survey} is not in the console's list"
    return found


def preview_and_publish(console: Browser, user: Browser, survey: str, title: str):
    console.follow(button(console, "preview"), "admin-editor-preview")
    console.expect(console.driver.current_url.endswith(f"/admin/surveys/{survey}/preview"), "プレビュー opens the preview")
    bar = console.find("main .preview-bar")
    console.link("編集に戻る", bar)  # there, or it fails
    console.expect(console.find("main h1").text == title, "the preview is the survey's page")
    console.expect(len(console.find_all("main fieldset.grid-row")) == 3, "the grid shows its three rows")
    answer = console.link("回答して", console.find("main form.survey-form"))
    console.expect(not answer.is_enabled(), "a preview takes no answer")

    # Published on the console's instance: the other one lists it within seconds. The clock
    # starts when the console has its answer; the console's page is checked after.
    console.navigate(lambda: console.click(console.link("公開する", bar)))
    published = time.monotonic()
    seen = seconds_until(user, lambda: user_card(user, title) is not None, published)
    console.check("admin-editor-published")
    # The user answers it next: the test goes on only if it is there.
    assert seen is not None, f"the other instance does not list the survey within {PROPAGATION:.0f}s of its publication"
    print(f"[{user.window}] published: listed by the other instance after {seen}s")

    console.expect(console.driver.current_url.endswith("/admin/surveys"), "publishing leads back to the surveys")
    published_card = card(console, survey)
    facts = published_card.text
    console.expect("公開中" in console.find(".status", published_card).text and "第1版" in facts,
                   f"{survey} is 公開中, 第1版: {facts!r}")
    console.expect(f"0 / {QUOTA}" in facts, f"its quota is 0 / {QUOTA}: {facts!r}")
    for action in ("編集", "複製", "今すぐ締め切る"):
        console.link(action, published_card)


# The other instance.

def user_card(user: Browser, title: str) -> WebElement | None:
    """The survey's card in the user's list, as last loaded."""
    return next((c for c in user.find_all("main .survey-list a") if user.find(".survey-title", c).text == title), None)


def seconds_until(user: Browser, shown, since: float) -> float | None:
    """Loads the user's list again and again until `shown()`; the seconds since `since`, or None
    after PROPAGATION. The pages on the way are not checked: the last is, by the caller."""
    while True:
        user.driver.get(user.base_url + "/surveys")
        if shown():
            return round(time.monotonic() - since, 2)
        if time.monotonic() - since > PROPAGATION:
            return None
        time.sleep(POLL)


def register_on_the_other_instance(user: Browser, email: str):
    """The user makes an account before answering: the response is then theirs, and their email
    is known to the server."""
    user.open("/register", "editor-user-register")
    for field, value in (("#email", email), ("#password", USER_PASSWORD)):
        user.find(field).send_keys(value)
    user.follow(user.find("main form button[type=submit]"), "editor-user-registered")
    user.expect("登録しました" in user.text(), "registration is confirmed")
    user.expect(email in user.find("header").text, "the header shows who is logged in")


def answer_on_the_other_instance(user: Browser, survey: str, title: str):
    user.open("/surveys", "editor-user-list")
    listed = user_card(user, title)
    assert listed, f"the user's list offers {title}"
    user.expect(listed.get_attribute("href").endswith("/surveys/" + survey), f"its card leads to /surveys/{survey}")
    user.expect(points(user.find(".reward", listed).text) == REWARD, f"its card pays {REWARD}pt")
    user.follow(listed, "editor-user-survey")
    user.expect(user.find("main h1").text == title, "the survey's page")

    user.tick(user.find("input[name='q[q1]'][value=c1]"))  # CHOICE
    for row, choice in GRID_ANSWERS.items():
        user.tick(user.find(f"input[name='q[q2][{row}]'][value={choice}]"))
    user.follow(user.link(f"回答して{REWARD}ptもらう", user.find("main form")), "editor-user-complete")
    user.expect(user.driver.current_url.endswith(f"/surveys/{survey}/complete"), "the answer is taken")
    user.expect(f"+{REWARD}pt" in user.text() and user.balance() == REWARD, f"it pays {REWARD}pt")


# The console again: the answer counted and exported.

def read_the_dashboard(console: Browser, survey: str, title: str):
    """回答状況 from the survey's card in the list (as the console last loaded it)."""
    console.follow(console.link("回答状況", card(console, survey)), "admin-dashboard")
    console.expect(console.driver.current_url.endswith(f"/admin/surveys/{survey}"), f"回答状況 opens /admin/surveys/{survey}")
    console.expect(console.find("main h1").text == title, "the dashboard is the survey's")
    facts = dict(zip((dt.text for dt in console.find_all("main dl.admin-facts dt")),
                     (dd.text for dd in console.find_all("main dl.admin-facts dd"))))
    console.expect(facts.get("完了", "").startswith(f"1件 / 目標{QUOTA}件"), f"完了 counts the answer against the quota: {facts!r}")
    console.expect(bool(console.find_all("main svg.day-chart")), "the completes per day are drawn")


def cut_an_export(console: Browser, survey: str, outcome: str = "") -> dict[str, dict[str, str]]:
    """The dashboard's export form with `outcome` chosen, days left open: the export page, cut
    now, at an address that names the cut; each file's download, SHA-256 and manifest, by format."""
    form = console.find("main form.export-form")
    Select(console.find("#export-outcome", form)).select_by_value(outcome)
    console.follow(console.link("この条件で締める", form), "admin-export")
    url = urllib.parse.urlsplit(console.driver.current_url)
    query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
    console.expect(url.path == f"/admin/surveys/{survey}/export" and query.get("outcome") == [outcome]
                   and re.fullmatch(r"\d{8}-\d{6}", (query.get("cut") or [""])[0]) is not None,
                   f"the export page names its filters and cut: {console.driver.current_url}")
    files = {}
    for section in console.find_all("main section.export-file"):
        files[console.find("h2", section).text] = {
            "href": console.find("a.button", section).get_attribute("href"),
            "sha256": console.find("code.digest", section).text,
            "manifest": console.link("マニフェスト（JSON）をダウンロード", section).get_attribute("href"),
        }
    console.expect(set(files) == {"CSV", "JSON Lines"}, f"a download of each format: {list(files)}")
    return files


def checked_download(console: Browser, file: dict[str, str], rows: int) -> bytes:
    """A file from the export page: its bytes hash to the SHA-256 the page gave, and its manifest
    says the same, with its rows."""
    status, _, body = download(console, file["href"])
    assert status == 200, f"the download: {status}"
    console.expect(hashlib.sha256(body).hexdigest() == file["sha256"], "the file's SHA-256 is the page's")
    status, kind, manifest = download(console, file["manifest"])
    read = json.loads(manifest) if status == 200 and kind.startswith("application/json") else {}
    console.expect(read.get("sha256") == file["sha256"] and read.get("rows") == rows, f"the manifest agrees: {read}")
    again = download(console, file["href"])[2]
    console.expect(again == body, "the same address gives the same bytes")
    return body


def download(console: Browser, url: str) -> tuple[int, str, bytes]:
    """Status, Content-Type and body of `url` fetched with the console browser's cookies (a
    headless browser's downloads are hard to get hold of)."""
    cookies = "; ".join(f"{cookie['name']}={cookie['value']}" for cookie in console.driver.get_cookies())
    request = urllib.request.Request(url, headers={"Cookie": cookies})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read()


def download_the_responses(console: Browser, survey: str, email: str):
    """The CSV of every response, then the JSON Lines of the completed ones: one response, the
    user's answers under a pseudonym, their email nowhere."""
    files = cut_an_export(console, survey)
    body = checked_download(console, files["CSV"], rows=1)
    console.expect(body.startswith(b"\xef\xbb\xbf"), f"the CSV starts with the UTF-8 byte order mark: {body[:20]!r}")
    console.expect(body.endswith(b"\r\n") and body.count(b"\n") == body.count(b"\r\n"), "every line of the CSV ends with CRLF")
    text = body.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 3, f"the CSV has 2 header rows and 1 response, not {len(rows)} rows:\n{text}"
    codes, headings, row = rows
    grid = [f"Q2_{n}" for n in range(1, len(GRID_ROWS) + 1)]
    console.expect(codes == EXPORT_CODES + ["Q1"] + grid, f"the CSV's columns by code: {codes}")
    console.expect(headings[:3] == ["回答者", "結果", "版"] and len(headings) == len(codes)
                   and headings[-len(GRID_ROWS):] == [f"Q2 {GRID_QUESTION}：{label}" for label in GRID_ROWS],
                   f"the CSV's headings: {headings}")
    response = dict(zip(codes, row))
    console.expect(bool(RESPONDENT.fullmatch(response.get("respondent", ""))),
                   f"the respondent is a pseudonym r- and 16 hex digits: {response.get('respondent')!r}")
    console.expect(response.get("outcome") == "完了", f"the response is 完了: {response.get('outcome')!r}")
    console.expect(response.get("Q1") == CHOICE, f"Q1 holds the choice's label {CHOICE}: {response.get('Q1')!r}")
    picked = {code: SCALE[choice] for code, choice in zip(grid, GRID_ANSWERS.values())}
    console.expect({code: response.get(code) for code in grid} == picked, f"the grid's rows hold the scale's labels picked {picked}: {row}")
    local_part = email.split("@")[0]
    console.expect(email not in text and local_part not in text, f"the user's email is nowhere in the CSV:\n{text}")

    console.back("admin-dashboard")
    body = checked_download(console, cut_an_export(console, survey, "completed")["JSON Lines"], rows=1)
    text = body.decode("utf-8")
    lines = text.splitlines()
    console.expect(len(lines) == 1, f"one completed response in the JSON Lines: {text!r}")
    if lines:
        console.expect(json.loads(lines[0]).get("respondent") == response.get("respondent"),
                       f"the JSON Lines' respondent is the CSV's {response.get('respondent')}: {lines[0]}")
    console.expect(email not in text and local_part not in text, f"the user's email is nowhere in the JSON Lines: {text!r}")


def close_early(console: Browser, user: Browser, survey: str, title: str):
    console.open("/admin/surveys", "admin-editor-answered")
    console.expect(f"1 / {QUOTA}" in card(console, survey).text, f"the quota counts the answer: 1 / {QUOTA}")

    console.navigate(lambda: console.click(console.link("今すぐ締め切る", card(console, survey))))
    closed = time.monotonic()
    seen = seconds_until(user, lambda: (c := user_card(user, title)) is not None and "受付終了" in c.text, closed)
    console.check("admin-editor-closed")
    user.expect(seen is not None, f"the other instance shows the survey 受付終了 within {PROPAGATION:.0f}s of its closing")
    if seen is not None:
        print(f"[{user.window}] closed: 受付終了 on the other instance after {seen}s")
    console.expect("終了" in console.find(".status", card(console, survey)).text, f"{survey} is 終了 in the console")

    user.open("/surveys", "editor-user-closed")
    listed = user_card(user, title)
    user.expect(listed is not None and "受付終了" in listed.text and "回答済み" in listed.text,
                f"the user's list shows {title} 受付終了 and 回答済み: {listed.text if listed else None!r}")
