"""The support desk: an operator finds a user by their address at /admin/users, adds 150pt with a
reason the user then reads in their history, is refused an adjustment without a reason (nothing
changes), and finds the adjustment in the audit log. Each window has its own user and address."""

import pytest

from helpers import Authenticator, Browser, points, sign_in_operator
from test_accounts import fill_in
from test_exchange import amount, register

OPERATOR_PASSWORD = "correct horse battery staple"
STARTING_POINTS = 1_200
REASON = "お問い合わせへのお詫び"
MOVEMENT = f"運営による調整：{REASON}"
REASON_REQUIRED = "調整の理由を入力してください。"


@pytest.fixture(scope="module")
def desk_operator(server, console_admin):
    email = "desk@example.jp"
    server.create_operator(email, OPERATOR_PASSWORD)
    return email, Authenticator(server)


def fact(b: Browser, term: str) -> str:
    """What the user's page says after `term` (残高, …)."""
    for dt in b.find_all("main .admin-facts dt"):
        if dt.text == term:
            return dt.find_element("xpath", "following-sibling::dd[1]").text
    raise AssertionError(f"{b.page_name}: no {term} on the user's page")


def adjust(b: Browser, amount_typed: str, reason: str, slug: str):
    for field, value in (("#points", amount_typed), ("#reason", reason)):
        b.find(field).clear()
        b.find(field).send_keys(value)
    b.follow(b.link("調整する", b.find("main")), slug)


def flashes(b: Browser, role: str) -> str:
    return " ".join(message.text for message in b.find_all(f"main .flash[role={role}]"))


def adjustments(b: Browser) -> list:
    return [line for line in b.find_all("main .ledger li") if MOVEMENT in line.text]


def test_the_support_desk_adjusts_a_users_points(devices, window, server, desk_operator):
    desk_operator, authenticator = desk_operator
    user: Browser = devices(window)
    console: Browser = devices(window)
    email = f"desk-user-{window}@example.jp"

    # A registered user with some points.
    user.sign_in_as(server.seed_user(STARTING_POINTS))
    user.open("/points", "desk-user-points")
    register(user, email, "desk-user")
    user.open("/points/history", "desk-user-history-before")
    before = user.balance()
    user.expect(not adjustments(user), "no adjustment yet")

    # The operator signs in and opens ユーザー.
    console.open("/admin", "desk-login")
    sign_in_operator(console, desk_operator, OPERATOR_PASSWORD, authenticator, "desk-surveys")
    console.follow(console.link("ユーザー", console.find("nav.tabs")), "desk-users")
    console.expect(console.driver.current_url.endswith("/admin/users"), f"ユーザー leads to /admin/users: {console.driver.current_url}")
    tab = console.link("ユーザー", console.find("nav.tabs"))
    console.expect(tab.get_attribute("aria-current") == "page", "the tab ユーザー is marked current")

    # Nobody by an unknown address; the user by theirs.
    console.find("#q").send_keys(f"nobody-{window}@example.jp")
    console.follow(console.link("検索", console.find("main")), "desk-users-not-found")
    console.expect("見つかりませんでした" in flashes(console, "alert"), "an unknown address finds nobody, and the page says so")
    console.find("#q").clear()
    console.find("#q").send_keys(email)
    console.follow(console.link("検索", console.find("main")), "desk-user")
    user_id = console.driver.current_url.rsplit("/admin/users/", 1)[-1]
    console.expect("/admin/users/" in console.driver.current_url and len(user_id) >= 8 and "?" not in user_id,
                   f"the search leads to the user's page: {console.driver.current_url}")
    console.expect(user_id in console.find("main h1").text, f"the page names the user {user_id}")
    console.expect(points(fact(console, "残高")) == before, f"残高 is the user's {before}pt: {fact(console, '残高')}")

    # +150pt with a reason.
    adjust(console, "150", REASON, "desk-user-adjusted")
    console.expect("ポイントを調整しました。" in flashes(console, "status"), f"the page says it is done: {flashes(console, 'status')!r}")
    console.expect(points(fact(console, "残高")) == before + 150, f"残高 is {before + 150}pt: {fact(console, '残高')}")
    moves = adjustments(console)
    console.expect(len(moves) == 1 and amount(console.find(".amount", moves[0]).text) == 150,
                   f"the recent movements show {MOVEMENT} +150pt: {[line.text for line in moves]}")

    # Refused without a reason: spaces only, then nothing at all (the field's `required` taken
    # off, as a browser that ignores it would send it); nothing changes.
    adjust(console, "１００", "   ", "desk-user-refused-spaces")
    console.expect(REASON_REQUIRED in flashes(console, "alert"), f"a reason of spaces is refused: {flashes(console, 'alert')!r}")
    console.expect(not flashes(console, "status"), "and nothing is said done")
    console.driver.execute_script("document.getElementById('reason').removeAttribute('required')")
    adjust(console, "-100", "", "desk-user-refused-empty")
    console.expect(REASON_REQUIRED in flashes(console, "alert"), f"an empty reason is refused: {flashes(console, 'alert')!r}")
    console.expect(points(fact(console, "残高")) == before + 150, f"the refusals changed 残高 to {fact(console, '残高')}")
    console.expect(len(adjustments(console)) == 1, "the refusals added no movement")

    # The user reads the adjustment in their history, once.
    user.refresh("desk-user-history-after")
    moves = adjustments(user)
    user.expect(len(moves) == 1 and amount(user.find(".amount", moves[0]).text) == 150,
                f"the history shows {MOVEMENT} +150pt once: {[line.text for line in moves]}")
    user.expect("+150pt" in (moves[0].text if moves else ""), "written +150pt")
    user.expect(user.balance() == before + 150, f"the balance is {user.balance()}pt, not {before + 150}pt")

    # The audit log: the views and the adjustment, with the balance before and after; not the refusals.
    console.follow(console.link("監査ログ", console.find("nav.tabs")), "desk-audit")
    entries = [entry.text for entry in console.find_all("main .audit-entry") if user_id in entry.text]
    adjusted = [entry for entry in entries if "ポイントを調整" in entry]
    console.expect(len(adjusted) == 1, f"one ポイントを調整 of {user_id}: {adjusted}")
    console.expect(bool(adjusted) and REASON in adjusted[0] and "150pt" in adjusted[0] and desk_operator in adjusted[0],
                   f"the entry names the reason, the amount and the operator: {adjusted}")
    console.expect(any("ユーザーを閲覧" in entry for entry in entries), f"the user's page viewed is logged: {entries}")

    for b in (user, console):
        b.assert_no_problems()
