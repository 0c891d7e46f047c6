"""The console: an operator signs in at /admin, sees every survey with its state, closes one
early, and a user's list shows it 受付終了 at once; the audit log names the operator and the
deadline before and after. Every console page is screenshotted and checked with axe."""

from helpers import Browser, sign_in_operator

# Screened surveys anyone may see, and which no other walk needs: each window closes its own.
CLOSED_BY = {"phone": ("life-002", "洗剤の選び方"), "desktop": ("money-002", "家計簿のつけ方")}


def test_an_operator_closes_a_survey_early(devices, window, console_admin):
    operator, password, authenticator = console_admin
    survey, title = CLOSED_BY[window]
    console: Browser = devices(window)
    user: Browser = devices(window)

    # A user's list offers the survey.
    user.open("/surveys", "admin-user-before")
    user.expect(any(card.get_attribute("href").endswith("/surveys/" + survey) for card in user.find_all("main .survey-list a")),
                f"{survey} is offered before it is closed")

    # A browser that is nobody's is sent from /admin to the sign-in page; a wrong password says so.
    console.open("/admin", "admin-login")
    console.expect(console.driver.current_url.endswith("/admin/login"), "/admin leads a signed-out browser to sign in")
    console.find("#email").send_keys(operator)
    console.find("#password").send_keys("wrong guess here")
    console.follow(console.link("ログイン", console.find("main")), "admin-login-refused")
    console.expect("メールアドレスまたはパスワードが正しくありません。" in console.text(), "a refused sign-in says why")
    sign_in_operator(console, operator, password, authenticator, "admin-surveys")
    console.expect(console.driver.current_url.endswith("/admin/surveys"), "signed in, the surveys")
    console.expect(operator in console.find("header").text, "the header names the operator")
    for state in ("公開中", "満了", "終了"):
        console.expect(state in console.text(), f"some survey is {state}")

    # Close now: the user's next page shows it closed.
    card = next(c for c in console.find_all("main .admin-survey") if survey in c.text)
    console.follow(console.link("今すぐ締め切る", card), "admin-surveys-closed")
    card = next(c for c in console.find_all("main .admin-survey") if survey in c.text)
    console.expect("終了" in card.find_element("css selector", ".status").text, f"{survey} is 終了 now")

    user.open("/surveys", "admin-user-after")
    listed = [c for c in user.find_all("main .survey-list a") if c.get_attribute("href").endswith("/surveys/" + survey)]
    user.expect(listed and "受付終了" in listed[0].text, f"the list marks {survey} 受付終了: {[c.text for c in listed]}")
    user.open("/surveys/" + survey, "admin-user-closed-survey")
    user.expect("このアンケートの受付は終了しました" in user.text(), "its page says 受付終了")

    # The audit log: who, what, before and after; then signing out ends the console.
    console.follow(console.link("監査ログ"), "admin-audit")
    entries = console.text()
    console.expect("アンケートを締め切り" in entries and survey in entries and "変更前: 締切なし" in entries,
                   "the audit log holds the closing with its deadline before and after")
    console.expect("ログイン" in entries and operator in entries, "and the sign-in, by whom")
    # The operators, for a 管理者: each with the role and the second factor enrolled.
    console.follow(console.link("運営者", console.find("nav.tabs")), "admin-operators")
    rows = [row.text for row in console.find_all("main .operator-row")]
    console.expect(any(operator in row and "管理者" in row and "登録済み" in row for row in rows),
                   f"the operators list the 管理者 with the second factor enrolled: {rows}")
    console.follow(console.link("ログアウト"), "admin-signed-out")
    console.expect(console.driver.current_url.endswith("/admin/login"), "signed out, the sign-in page")
    console.open("/admin/surveys", "admin-after-sign-out", expected_status=404)

    # A user reaches nothing of the console.
    user.open("/admin/surveys", "admin-as-user", expected_status=404)
    user.open("/admin", "admin-home-as-user", expected_status=404)
    for b in (console, user):
        b.assert_no_problems()
