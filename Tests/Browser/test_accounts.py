"""Points that belong to a person, not to one browser: register on the phone, log in on the
desktop and find the same balance; log out of every device and the phone is a guest again."""

import re
import time
from datetime import datetime, timedelta, timezone

from helpers import Browser, mailed_link, verify_address, wait_for_mail
from servers import Server, clock_offset, faketime_of, server_binary
from test_walk import answer_every_question, answerable, cards, submit_button

EMAIL = "hanako.browser@example.jp"
PASSWORD = "tsuyoi pasuwaado 2026"


def fill_in(b: Browser, email: str, password: str):
    for field, value in (("#email", email), ("#password", password)):
        b.find(field).clear()
        b.find(field).send_keys(value)


def test_register_on_the_phone_log_in_on_the_desktop_log_out_everywhere(devices):
    phone = devices("phone")
    phone.open("/surveys", "account-surveys")
    phone.follow(next(card for card in cards(phone) if answerable(card))["link"], "account-survey")
    answer_every_question(phone)
    phone.follow(submit_button(phone), "account-survey-complete")
    earned = phone.balance()
    phone.expect(earned > 0, "the guest earned points")

    phone.follow(phone.link("ログイン", phone.find("header")), "account-login")
    phone.follow(phone.link("新規登録"), "account-register")
    fill_in(phone, EMAIL, "password1")
    phone.follow(phone.find("main form button[type=submit]"), "account-register-refused")
    phone.expect("よく使われているパスワード" in phone.text(), "a common password is refused, and the page says so")
    phone.expect(phone.find("#email").get_attribute("value") == EMAIL, "the address is kept")
    fill_in(phone, EMAIL, PASSWORD)
    phone.follow(phone.find("main form button[type=submit]"), "account-registered")
    phone.expect("登録しました" in phone.text(), "registration is confirmed")
    phone.expect(phone.balance() == earned, f"the guest's {earned}pt stay: {phone.balance()}")
    phone.expect(EMAIL in phone.find("header").text, "the header shows who is logged in")

    desktop = devices("desktop")
    desktop.open("/login", "account-desktop-login")
    fill_in(desktop, EMAIL, PASSWORD)
    desktop.follow(desktop.find("main form button[type=submit]"), "account-desktop-logged-in")
    desktop.expect(desktop.balance() == earned, f"the desktop shows the phone's {earned}pt: {desktop.balance()}")
    desktop.expect("ログインしました" in desktop.text(), "login is confirmed")

    desktop.follow(desktop.find("header a.who"), "account-desktop-account")
    desktop.follow(desktop.find("main form[action='/logout/everywhere'] button"), "account-desktop-logged-out")
    desktop.expect("ログイン" in desktop.find("header").text and EMAIL not in desktop.find("header").text,
                   "the desktop is a guest")

    phone.open("/points", "account-phone-after")
    phone.expect(phone.balance() == 0, f"the phone is a guest again: {phone.balance()}pt")
    phone.expect(EMAIL not in phone.find("header").text, "the phone's header shows nobody")

    phone.assert_no_problems()
    desktop.assert_no_problems()


def test_a_forgotten_password_is_reset_from_the_mail(devices, window, server):
    """Register and verify the address from its mail, sign out, forget the password, ask for a
    link, reset it from the mail, and sign in with the new one (the old one no longer works)."""
    b: Browser = devices(window)
    email, old, new = f"wasureta-{window}@example.jp", "furui pasuwaado 2026", "atarashii pasuwaado 2026"
    b.open("/register", "reset-register")
    fill_in(b, email, old)
    b.follow(b.find("main form button[type=submit]"), "reset-registered")
    verify_address(b, server, email, "reset")
    b.follow(b.find("header a.who"), "reset-account")
    b.follow(b.find("main form[action='/logout'] button"), "reset-logged-out")

    b.open("/login", "reset-login")
    b.follow(b.link("パスワードを忘れた方"), "reset-forgot")
    b.find("#email").send_keys(email)
    b.follow(b.find("main form button[type=submit]"), "reset-asked")
    b.expect("登録されていれば、パスワード再設定のメールを送りました" in b.text(), "the page says a link was sent if the address is known")

    link = mailed_link(server.data, email, r"/password/reset\?token=[0-9a-f]{64}")
    b.expect(link.startswith(server.base_url + "/"), f"the mail links to the site: {link}")
    b.open(link[len(server.base_url):], "reset-form")
    b.find("#password").send_keys(new)
    b.follow(b.find("main form button[type=submit]"), "reset-done")
    b.expect("パスワードを再設定しました" in b.text() and b.driver.current_url.endswith("/login"), "reset, and on to the login")

    fill_in(b, email, old)
    b.follow(b.find("main form button[type=submit]"), "reset-old-refused")
    b.expect("正しくありません" in b.text(), "the old password no longer signs in")
    fill_in(b, email, new)
    b.follow(b.find("main form button[type=submit]"), "reset-signed-in")
    b.expect(email in b.find("header").text, "the new password signs in")
    b.assert_no_problems()


def test_a_member_away_for_a_year_is_warned_and_stops_the_warnings_in_one_click(devices, request, tmp_path):
    """Earn points, leave for a year: ten days before they expire, a warning by mail (the day's
    pass, whether or not the member comes back); its link stops these warnings in one press,
    and the settings page says so. The second start's clock is set from the first's (libfaketime),
    ten days before the points' expiry, whatever today is."""
    base = clock_offset(request.config.getoption("--faketime"))
    email, password = f"rusu-{int(time.time())}@example.jp", "rusu no pasuwaado 2026"
    data = tmp_path / "data"
    first = Server(server_binary(request.config), data, tmp_path / "first.log", faketime_of(base))
    first.wait_until_healthy()
    b: Browser = devices("phone", first)
    b.open("/register", "away-register")
    fill_in(b, email, password)
    b.follow(b.find("main form button[type=submit]"), "away-registered")
    verify_address(b, first, email, "away")
    b.open("/surveys", "away-surveys")
    b.follow(next(card for card in cards(b) if answerable(card))["link"], "away-survey")
    answer_every_question(b)
    b.follow(submit_button(b), "away-survey-complete")
    earned = b.balance()
    b.expect(earned > 0, "the member earned points")
    earned_at = datetime.now(timezone.utc) + base
    assert first.stop() == 0, first.log_tail()

    # Points earned in a month (JST) expire as the month twelve months on ends.
    jst = timezone(timedelta(hours=9))
    month = earned_at.astimezone(jst)
    expires = datetime(month.year + (month.month + 12) // 12, (month.month + 12) % 12 + 1, 1, tzinfo=jst)
    away = expires - timedelta(days=10) - datetime.now(timezone.utc)
    second = Server(server_binary(request.config), data, tmp_path / "second.log", faketime_of(away))
    second.wait_until_healthy()
    try:
        warning = next(m for m in wait_for_mail(data, email, "list=expiry"))
        b.expect(f"{earned:,}pt" in warning.get_content(), f"the warning says how many points: {warning.get_content()[:300]!r}")
        b.expect(warning["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click", "one click for mail programs")
        link = re.search(r"<(\S+)>", warning["List-Unsubscribe"]).group(1)
        b.expect(link in warning.get_content(), "the same link in the body")
        b.base_url = second.base_url
        b.open("/" + link.split("/", 3)[3], "away-unsubscribe")
        b.expect("ポイント失効のお知らせ" in b.text(), "the page names the list it stops")
        b.follow(b.find("main form button[type=submit]"), "away-unsubscribed")
        b.expect("配信を停止しました" in b.text(), f"stopped: {b.text()[:200]!r}")
        b.open("/login", "away-login")
        if email not in b.find("header").text:
            fill_in(b, email, password)
            b.follow(b.find("main form button[type=submit]"), "away-logged-in")
        b.open("/account/notifications", "away-settings")
        b.expect(not b.find("input[value=expiry]").is_selected() and b.find("input[value=invitations]").is_selected(),
                 "the settings show the warnings stopped, the invitations on")
        b.assert_no_problems()
    finally:
        assert second.stop() == 0, second.log_tail()


def test_a_member_downloads_their_data_and_leaves(devices, window, server):
    """From the account page: what leaving loses, the password asked (a wrong one refused), then
    退会しました and a guest's header; the address signs in no more."""
    b: Browser = devices(window)
    email, password = f"taikai-{window}-{int(time.time())}@example.jp", "sayounara pasuwaado 2026"
    b.open("/register", "leave-register")
    fill_in(b, email, password)
    b.follow(b.find("main form button[type=submit]"), "leave-registered")
    verify_address(b, server, email, "leave")
    b.follow(b.find("header a.who"), "leave-account")
    b.expect(b.find("main a[href='/account/data.json']").get_attribute("download") is not None, "the data is a download")
    b.follow(b.link("退会する"), "leave-withdraw")
    b.expect("退会すると失われるもの" in b.text() and "0pt" in b.find("main .big").text, "what leaving loses comes first")
    b.find("#password").send_keys("machigai pasuwaado")
    b.follow(b.find("main form button[type=submit]"), "leave-refused")
    b.expect("パスワードが正しくありません" in b.text() and b.driver.current_url.endswith("/account/withdraw"), "a wrong password is refused")
    b.find("#password").send_keys(password)
    b.follow(b.find("main form button[type=submit]"), "leave-done")
    b.expect("退会しました" in b.text() and b.driver.current_url.endswith("/account/withdrawn"), "left")
    b.expect(email not in b.find("header").text, "signed out")
    b.open("/login", "leave-login")
    fill_in(b, email, password)
    b.follow(b.find("main form button[type=submit]"), "leave-login-refused")
    b.expect("正しくありません" in b.text(), "the address signs in no more")
    b.assert_no_problems()
