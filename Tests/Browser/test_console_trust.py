"""The console's second factor and four eyes (the server's first operator, a 管理者, made first by
`console_admin`), on a desktop as operators use it: an operator
enrols an authenticator (pyotp, a real TOTP client; the QR code read by zxing-cpp), signs in with
a code, is refused the same code again, and signs in once with a recovery code; one operator's
20,000pt adjustment reaches the user only after a second operator approves it."""

from helpers import Authenticator, Browser, sign_in_operator
from test_exchange import register

PASSWORD = "correct horse battery staple"
STARTING_POINTS = 500


def sign_out(console: Browser, slug: str):
    console.follow(console.link("ログアウト", console.find("header")), slug)
    console.expect(console.driver.current_url.endswith("/admin/login"), "signed out, the sign-in page")


def test_an_operator_enrols_an_authenticator_and_signs_in_with_codes(devices, server, console_admin):
    email = "totp@example.jp"
    server.create_operator(email, PASSWORD, role="support")
    authenticator = Authenticator(server)
    console: Browser = devices("desktop")

    console.open("/admin/login", "totp-login")
    sign_in_operator(console, email, PASSWORD, authenticator, "totp-users")
    console.expect(console.driver.current_url.endswith("/admin/users"), f"a サポート's console opens at ユーザー: {console.driver.current_url}")
    console.expect("totp@example.jp（サポート）" in console.find("header").text, "the header names the operator and the role")
    console.expect([tab.text for tab in console.find_all("nav.tabs a")] == ["ユーザー"], "the menu of the role only")
    console.open("/admin/login/enrol", "totp-enrol-again")
    console.expect("/admin/login/enrol" not in console.driver.current_url, "the secret is never shown again")
    console.open("/admin/audit", "totp-audit-forbidden", expected_status=403)
    console.expect("この画面を開く権限がありません" in console.text(), "a part of another role says so")
    sign_out(console, "totp-signed-out")

    # The next code signs in; the same code again is refused.
    code = authenticator.code()
    sign_in_operator(console, email, PASSWORD, authenticator, "totp-code", code=code)
    console.expect(console.driver.current_url.endswith("/admin/users"), "signed in with a code")
    sign_out(console, "totp-signed-out-again")
    sign_in_operator(console, email, PASSWORD, authenticator, "totp-code-again", code=code)
    console.expect(console.driver.current_url.endswith("/admin/login/code?refused=1"), f"the same code is refused: {console.driver.current_url}")
    console.expect("確認コードが正しくありません。" in console.text(), "and the page says so")

    # A recovery code signs in, once.
    recovery = authenticator.recovery_codes[0]
    console.find("#code").send_keys(recovery)
    console.follow(console.link("確認する", console.find("main")), "totp-recovery")
    console.expect(console.driver.current_url.endswith("/admin/users"), "signed in with a recovery code")
    sign_out(console, "totp-signed-out-recovery")
    sign_in_operator(console, email, PASSWORD, authenticator, "totp-recovery-again", code=recovery)
    console.expect(console.driver.current_url.endswith("/admin/login/code?refused=1"), "a recovery code is taken once")
    console.assert_no_problems()


def test_a_large_adjustment_reaches_the_user_only_after_a_second_operator_approves(devices, server, console_admin):
    asker_email, approver_email = "asker@example.jp", "approver@example.jp"
    server.create_operator(asker_email, PASSWORD, role="support")
    server.create_operator(approver_email, PASSWORD, role="support")
    user: Browser = devices("phone")
    asker: Browser = devices("desktop")
    approver: Browser = devices("desktop")

    user.sign_in_as(server.seed_user(STARTING_POINTS))
    user.open("/points", "four-eyes-user")
    register(user, "four-eyes-user@example.jp", "four-eyes-user")
    before = user.balance()

    asker.open("/admin/login", "four-eyes-asker-login")
    sign_in_operator(asker, asker_email, PASSWORD, Authenticator(server), "four-eyes-asker")
    asker.find("#q").send_keys("four-eyes-user@example.jp")
    asker.follow(asker.link("検索", asker.find("main")), "four-eyes-asker-user")
    asker.find("#points").send_keys("20000")
    asker.find("#reason").send_keys("障害のお詫び")
    asker.follow(asker.link("調整する", asker.find("main")), "four-eyes-asked")
    asker.expect("この調整は承認待ちです" in asker.text(), "the page says it waits for approval")
    user.refresh("four-eyes-user-waiting")
    user.expect(user.balance() == before, f"nothing reaches the user before approval: {user.balance()}pt")

    # The one who asked cannot approve.
    asker.follow(asker.link("ユーザー", asker.find("nav.tabs")), "four-eyes-asker-desk")
    waiting = asker.find_all("main .admin-row")
    asker.expect(len(waiting) == 1 and "+20,000pt" in waiting[0].text and "自分が依頼した調整です" in waiting[0].text,
                 f"the desk lists it, as the asker's own: {[row.text for row in waiting]}")
    asker.expect(not asker.find_all("main .admin-row button"), "no approve button for the one who asked")

    # A second operator approves: the points arrive, once.
    approver.open("/admin/login", "four-eyes-approver-login")
    sign_in_operator(approver, approver_email, PASSWORD, Authenticator(server), "four-eyes-approver")
    row = approver.find("main .admin-row")
    approver.expect("障害のお詫び" in row.text and asker_email in row.text, f"the request names the reason and who asked: {row.text}")
    approver.follow(approver.link("承認して反映", row), "four-eyes-approved")
    approver.expect("調整を承認し、ユーザーに反映しました。" in approver.text(), "the page says it is done")
    approver.expect("承認を待っている調整はありません。" in approver.text(), "nothing waits any more")
    approver.back("four-eyes-approver-back")
    approver.refresh("four-eyes-approver-refresh")
    user.refresh("four-eyes-user-approved")
    user.expect(user.balance() == before + 20_000, f"the user has {before + 20_000}pt: {user.balance()}pt")
    user.open("/points/history", "four-eyes-user-history")
    moves = [line.text for line in user.find_all("main .ledger li") if "運営による調整：障害のお詫び" in line.text]
    user.expect(len(moves) == 1, f"the adjustment is in the history once: {moves}")

    for b in (user, asker, approver):
        b.assert_no_problems()
