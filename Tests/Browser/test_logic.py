"""Survey logic, end to end: an operator builds a survey whose second question is asked only of
those who rarely eat breakfast (a display condition), its options shuffled per respondent, and a
quota of one complete per gender (two quota cells); two members whose answers differ answer it in
pages, without script; a third finds her cell full; the dashboard shows each cell, and the
export shows the blanks the condition made and the order each member saw."""
import csv
import io
import re

from selenium.webdriver.support.ui import Select

from helpers import Browser, sign_in_operator
from test_editor import button, checked_download, cut_an_export, fill
from test_exchange import register

REASONS = ("時間がない", "食欲がない", "ダイエット中", "その他")


def build_the_survey(console: Browser, title: str) -> str:
    """A new survey with a condition, shuffled options and two cells, published; its id."""
    console.follow(console.link("新しいアンケートを作成"), "logic-editor-new")
    found = re.search(r"/admin/surveys/(s-[0-9a-f]+)/edit$", console.driver.current_url)
    assert found, f"a new survey opens its editor, not {console.driver.current_url}"
    survey = found.group(1)
    fill(console, "#f-title", title)
    fill(console, "#f-description", "朝の習慣について、簡単な質問にお答えください。")
    Select(console.find("#f-category")).select_by_value("lifestyle")
    fill(console, "#f-reward", "30")
    fill(console, "#f-minutes", "2")
    fill(console, "#f-q-0-text", "朝ごはんを食べますか。")
    fill(console, "#f-q-0-choices", "ほぼ毎日\nほとんど食べない")
    for kind, slug in (("multiple", "logic-editor-reasons-added"), ("rating", "logic-editor-rating-added")):
        Select(console.find("#f-newKind")).select_by_value(kind)
        console.follow(button(console, "add"), slug)
    fill(console, "#f-q-1-text", "朝ごはんを食べない理由は？")
    fill(console, "#f-q-1-choices", "\n".join(REASONS))
    fill(console, "#f-q-1-maxPicks", str(len(REASONS)))
    console.tick(console.find("#f-q-1-shuffle"))
    # The condition: its part of the form opens on a click (a <details>, no script).
    console.click(console.find("#question-2 details.condition summary"))
    fill(console, "#f-q-1-conditions", "q1: ほとんど食べない")
    fill(console, "#f-q-2-text", "朝の目覚めの満足度は？")
    console.tick(console.find("#f-cell-gender"))
    fill(console, "#f-cells", "女性 = 1\n男性 = 1")

    # A condition on a later question is refused at its field, naming it.
    console.click(console.find("#question-1 details.condition summary"))
    fill(console, "#f-q-0-conditions", "q3: 1〜2")
    console.follow(button(console, "publish"), "logic-editor-refused")
    errors = console.find_all("#f-q-0-conditions-error")
    console.expect(bool(errors) and "後ろにある設問3" in errors[0].text, f"the refusal names the later question: {[e.text for e in errors]}")
    fill(console, "#f-q-0-conditions", "")
    console.follow(button(console, "publish"), "logic-editor-published")
    console.expect(console.driver.current_url.endswith("/admin/surveys"), f"published: {console.driver.current_url}")
    return survey


def member(b: Browser, email: str, gender: str, slug: str):
    """A member with a profile of `gender` (the cells' dimension)."""
    b.open("/surveys", f"{slug}-first")
    register(b, email, slug)
    b.open("/profile", f"{slug}-profile")
    year = b.find("#profile-birthYear")
    year.clear()
    year.send_keys("1995")
    b.tick(b.find(f"#profile-gender-{gender}"))
    Select(b.find("#profile-prefecture")).select_by_value("tokyo")
    Select(b.find("#profile-occupation")).select_by_value("companyEmployee")
    b.follow(b.find("main form button[type=submit]"), f"{slug}-profile-saved")


def next_page(b: Browser, slug: str):
    b.follow(b.link("次のページへ", b.find("main form.survey-form")), slug)


def answer(b: Browser, survey: str, rarely: bool, slug: str) -> list[str]:
    """Page 1, then the page its answer calls for, then paid; the reasons in the order shown
    (none for a daily eater, who is not asked)."""
    b.open(f"/surveys/{survey}", f"{slug}-page-1")
    b.expect("1 / 2ページ" in b.find("main .page-progress").text, "the first of two pages")
    b.expect(len(b.find_all("main fieldset.question")) == 1, "the first page asks one question")
    b.tick(b.find("main input[name='q[q1]'][value=c2]" if rarely else "main input[name='q[q1]'][value=c1]"))
    next_page(b, f"{slug}-page-2")
    legends = [e.text for e in b.find_all("main fieldset.question legend")]
    shown = []
    if rarely:
        b.expect(len(legends) == 2 and "食べない理由" in legends[0], f"the reasons are asked: {legends}")
        shown = [label.text.strip() for label in b.find_all("main fieldset.question:first-of-type label.option")]
        b.expect(sorted(shown) == sorted(REASONS) and shown[-1] == "その他", f"the reasons shuffled, その他 last: {shown}")
        # Back a page and forward again: the answer kept, the same order.
        b.follow(b.link("前のページへ", b.find("main form.survey-form")), f"{slug}-back")
        b.expect(b.find("main input[name='q[q1]'][value=c2]").is_selected(), "the first page keeps its answer")
        next_page(b, f"{slug}-page-2-again")
        again = [label.text.strip() for label in b.find_all("main fieldset.question:first-of-type label.option")]
        b.expect(again == shown, f"the same order on every visit: {again}")
        b.tick(b.find(f"main input[name='q[q2]'][value=c{REASONS.index('時間がない') + 1}]"))
    else:
        b.expect(len(legends) == 1 and "目覚め" in legends[0], f"a daily eater is not asked why: {legends}")
    b.tick(b.find("main input[name='q[q3]'][value='4']"))
    b.follow(b.link("回答して30ptもらう", b.find("main form.survey-form")), f"{slug}-complete")
    b.expect(b.driver.current_url.endswith(f"/surveys/{survey}/complete"), f"paid: {b.driver.current_url}")
    return shown


def test_a_survey_with_logic_is_answered_in_pages_and_exported_whole(devices, window, server, console_admin):
    operator, password, authenticator = console_admin
    console: Browser = devices(window)
    title = f"朝の過ごし方（{window}）"
    console.open("/admin", "logic-admin-login")
    sign_in_operator(console, operator, password, authenticator, "logic-admin-surveys")
    survey = build_the_survey(console, title)

    rarely: Browser = devices(window)
    member(rarely, f"logic-a-{window}@example.jp", "female", "logic-a")
    order = answer(rarely, survey, rarely=True, slug="logic-a")
    daily: Browser = devices(window)
    member(daily, f"logic-b-{window}@example.jp", "male", "logic-b")
    answer(daily, survey, rarely=False, slug="logic-b")
    # Her cell is in: the next woman finds it closed.
    late: Browser = devices(window)
    member(late, f"logic-c-{window}@example.jp", "female", "logic-c")
    late.open(f"/surveys/{survey}", "logic-c-closed")
    late.expect("このアンケートの受付は終了しました" in late.text(), "a full cell closes the survey to its members")

    console.open(f"/admin/surveys/{survey}", "logic-dashboard")
    facts = console.text()
    console.expect("割付 女性" in facts and "1件 / 上限1件（満了）" in facts, "the dashboard shows each cell against its limit")
    body = checked_download(console, cut_an_export(console, survey)["CSV"], rows=2)
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"), newline="")))
    codes, headings = rows[0], rows[1]
    by_cell = {row[codes.index("cell")]: dict(zip(codes, row)) for row in rows[2:]}
    console.expect(set(by_cell) == {"女性", "男性"}, f"one row per member, each with their cell: {list(by_cell)}")
    reasons = [f"Q2_{n}" for n in range(1, len(REASONS) + 1)]
    console.expect(all("空欄=非表示" in headings[codes.index(code)] for code in reasons), "the heading says what a blank means")
    woman, man = by_cell.get("女性", {}), by_cell.get("男性", {})
    console.expect([woman.get(code) for code in reasons] == ["1", "0", "0", "0"], f"shown and picked: 1, shown: 0 ({woman})")
    console.expect([man.get(code) for code in reasons] == ["", "", "", ""], f"not shown: blank, not 0 ({man})")
    console.expect(woman.get("Q2_order") == " ".join(str(REASONS.index(label) + 1) for label in order),
                   f"her order as she saw it: {woman.get('Q2_order')!r} for {order}")
    console.expect(man.get("Q2_order") == "", "no order where nothing was shown")
    for b in (console, rarely, daily, late):
        b.assert_no_problems()
