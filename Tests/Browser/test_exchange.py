"""An exchange is a request: a user with enough points registers, asks for a デジタルギフト 300円分
through the confirmation and reads its code at once on the request's page; the list shows the
code masked, the points page the balance 3,000pt lower and the history the movement. The same
confirmation sent again (Back, or a tab left open) pays nothing more, and /exchange then says
that one request a day is the limit. Each window has its own user and address."""

import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

from helpers import Browser, points, verify_address
from servers import REPO, Server, server_binary
from test_accounts import fill_in

PASSWORD = "koukan no pasuwaado 2026"
# More than the option costs, and less than two of it.
STARTING_POINTS = 5_000
OPTION = "デジタルギフト 300円分"
COST = 3_000
# Crockford's base32 (no I, L, O, U), four groups of four.
CROCKFORD = "0-9A-HJKMNP-TV-Z"
CODE = re.compile(rf"[{CROCKFORD}]{{4}}(?:-[{CROCKFORD}]{{4}}){{3}}")
DAILY_LIMIT = "ポイント交換の申請は1日1回までです。明日またお試しください。"
STALE = "ポイントの残高が変わったため、交換しませんでした。"
MOVEMENT = f"ポイント交換の申請（{OPTION}・申請番号1）"


def amount(text: str) -> int:
    """The amount in `text`, a debit written with a minus sign (−3,000pt) negative."""
    return points(text.replace("−", "-"))


def register(b: Browser, email: str, slug: str, server=None):
    """Signs up from the header, as a guest who has points does; the password then counts as
    typed for a while, so the confirmation does not ask for it. With `server`, the address is
    then verified from the mail the registration sent, as exchanging needs."""
    b.follow(b.link("ログイン", b.find("header")), f"{slug}-login")
    b.follow(b.link("新規登録"), f"{slug}-register")
    fill_in(b, email, PASSWORD)
    b.follow(b.find("main form button[type=submit]"), f"{slug}-registered")
    b.expect("登録しました" in b.text() and email in b.find("header").text, f"{email} is registered and signed in")
    if server is not None:
        verify_address(b, server, email, slug)



def option_card(b: Browser, title: str):
    for card in b.find_all("main .options li"):
        if title in b.find("strong", card).text:
            return card
    raise AssertionError(f"{b.page_name}: no option {title!r} on /exchange")


def request_button(b: Browser):
    buttons = [button for button in b.find_all("main form button") if "交換を申請する" in button.text]
    return buttons[0] if buttons else None


def test_a_user_exchanges_points_for_a_gift_code(devices, window, server):
    b: Browser = devices(window)
    email = f"gift-{window}@example.jp"
    b.sign_in_as(server.seed_user(STARTING_POINTS))
    b.open("/points", "exchange-guest-points")
    register(b, email, "exchange", server)
    before = b.balance()
    b.expect(before == STARTING_POINTS, f"the user holds {STARTING_POINTS}pt: {before}")

    # The options, what each costs and brings, and the limits.
    b.open("/points", "exchange-points-before")
    b.follow(b.link("ポイントを交換する"), "exchange-options")
    b.expect(b.driver.current_url.endswith("/exchange"), "the points page leads to /exchange")
    limits = b.find("main .limits").text
    b.expect("1日1回" in limits and "30,000pt" in limits, f"the limits are stated: {limits!r}")
    card = option_card(b, OPTION)
    b.expect(amount(b.find(".reward", card).text) == COST and "手数料なし" in card.text and "コード" in card.text,
             f"{OPTION} costs {COST:,}pt, no fee, and brings a code: {card.text!r}")

    # The confirmation; やめる spends nothing.
    b.follow(b.link("交換する", card), "exchange-confirmation")
    b.expect(b.find("main h1").text == f"{OPTION}に交換しますか？", f"the confirmation asks: {b.find('main h1').text!r}")
    b.expect(f"{COST:,}pt" in b.find("main").text, f"the confirmation says {COST:,}pt")
    b.expect(b.balance() == before, "opening the confirmation spends nothing")
    b.follow(b.link("やめる", b.find("main")), "exchange-cancelled")
    b.expect(b.driver.current_url.endswith("/exchange") and b.balance() == before, "やめる goes back to /exchange, nothing spent")
    b.follow(b.link("交換する", option_card(b, OPTION)), "exchange-confirmation-again")

    # The same confirmation in a second tab, to be sent once the first has been.
    confirmation = b.driver.current_url.removeprefix(b.base_url)
    first_tab = b.driver.current_window_handle
    b.new_tab()
    b.open(confirmation, "exchange-confirmation-second-tab")
    second_tab = b.driver.current_window_handle
    b.driver.switch_to.window(first_tab)

    # The request: points held and the code asked for in the same request.
    assert request_button(b), f"{b.page_name}: no 交換を申請する button"
    b.follow(request_button(b), "exchange-requested")
    after = b.balance()
    b.expect(b.driver.current_url.endswith("/exchange/history/1"), f"the request's page, not {b.driver.current_url}")
    b.expect(b.find("main h1").text == "申請番号1", f"the page is 申請番号1: {b.find('main h1').text!r}")
    b.expect("交換完了" in b.find("main .status").text, f"the request is 交換完了: {b.find('main .status').text!r}")
    b.expect(OPTION in b.find("main .details").text, f"the request names {OPTION}")
    messages = [message.text for message in b.find_all("main [role=status], main .flash")]
    b.expect(any("申請番号1" in message for message in messages), f"a message confirms the request: {messages}")
    codes = b.find_all("main .gift-code code")
    assert codes, f"{b.page_name}: no code on the request's page"
    code = codes[0].text.strip()
    b.expect(CODE.fullmatch(code) is not None, f"the code {code!r} is four groups of four in Crockford's base32")
    b.expect(after == before - COST, f"the request took {before - after}pt, not {COST:,}pt")

    # Back, then the confirmation sent again: refused, nothing more spent. The page is loaded
    # again (not kept), so it was shown after the points moved: today's request is the limit. One
    # restored as it was (Chrome's back/forward cache) would be refused as stale.
    if b.back("exchange-requested-back"):
        again = request_button(b)
        if again:
            refusal = STALE if b.restored else DAILY_LIMIT
            b.follow(again, "exchange-requested-again")
            flash = " ".join(message.text for message in b.find_all("main .flash"))
            b.expect(b.driver.current_url.endswith("/exchange") and refusal in flash,
                     f"sent again, it leads to /exchange saying {refusal!r}: {b.driver.current_url} {flash!r}")
        b.expect(b.balance() == after, f"Back and sending again changed the balance to {b.balance()}, not {after}")

    # The confirmation left open in the other tab was shown before the points moved: stale.
    b.driver.switch_to.window(second_tab)
    b.follow(request_button(b), "exchange-requested-from-second-tab")
    flash = " ".join(message.text for message in b.find_all("main .flash"))
    b.expect(b.driver.current_url.endswith("/exchange") and STALE in flash,
             f"the other tab's confirmation is refused as stale on /exchange: {flash!r}")
    b.expect(b.balance() == after, f"the other tab's confirmation changed the balance to {b.balance()}, not {after}")
    b.driver.close()
    b.driver.switch_to.window(first_tab)

    # /exchange says the day's request is made, at each option, and offers none.
    b.open("/exchange", "exchange-daily-limit")
    b.expect("本日は申請済み" in b.find("main .limits").text, "the limits say today's request is made")
    for card in b.find_all("main .options li"):
        title = b.find("strong", card).text
        b.expect("本日は申請済みです" in card.text, f"{title} says today's request is made: {card.text!r}")
        b.expect(not b.find_all("a", card), f"{title} offers no 交換する today")

    # The list: the request, its status, the code masked.
    b.follow(b.link("交換履歴を見る"), "exchange-history")
    rows = b.find_all("main .exchanges li")
    b.expect(len(rows) == 1, f"one request in the list: {[row.text for row in rows]}")
    row = rows[0].text if rows else ""
    masked = "••••-••••-••••-" + code[-4:]
    b.expect("申請番号1" in row and OPTION in row and "交換完了" in row, f"the list shows 申請番号1, {OPTION}, 交換完了: {row!r}")
    b.expect(masked in row, f"the list shows the code masked as {masked}: {row!r}")
    b.expect(code not in b.driver.page_source, "the list does not hold the whole code")
    b.follow(b.link("申請番号1", b.find("main .exchanges")), "exchange-history-1")
    b.expect(b.find("main .gift-code code").text.strip() == code, "the request's page shows the same code again")

    # The points: the balance 3,000pt lower, the rank and the expiry, and the movement.
    b.follow(b.find("header .balance"), "exchange-points-after")
    b.expect(points(b.find("main .balance-card").text) == before - COST,
             f"the points page shows {points(b.find('main .balance-card').text)}pt, not {before - COST}pt")
    headings = [heading.text for heading in b.find_all("main h2")]
    b.expect("会員ランク" in headings and "ポイントの有効期限" in headings, f"the rank and expiry cards: {headings}")
    b.follow(b.link("すべての履歴"), "exchange-points-history")
    moves = [line for line in b.find_all("main .ledger li") if MOVEMENT in line.text]
    b.expect(len(moves) == 1 and amount(b.find(".amount", moves[0]).text) == -COST,
             f"one movement {MOVEMENT} of −{COST:,}pt: {[line.text for line in moves]}")

    b.assert_no_problems()


class Sandbox:
    """The sandbox gift provider (Scripts/sandbox-gift-provider.py) in its own process, slow
    enough that a request's form answers before the code comes, and out of e-money."""

    def __init__(self, folder: Path):
        self.credentials = folder / "provider-credentials"
        self.credentials.write_text(f"pointapp-browser:{secrets.token_hex(16)}\n")
        self.ledger = folder / "provider"
        self.process = subprocess.Popen(
            [sys.executable, str(REPO / "Scripts" / "sandbox-gift-provider.py"), "--folder", str(self.ledger),
             "--credentials", str(self.credentials), "--delay", "4", "--unavailable", "emoney-500"],
            stdout=subprocess.PIPE, text=True)
        ready = self.process.stdout.readline().split()
        assert ready[:1] == ["ready"], f"the sandbox provider did not start: {ready}"
        self.url = f"http://127.0.0.1:{ready[1]}"

    def orders(self) -> list[list[str]]:
        """Its log: one line per order made (key, product, code)."""
        log = self.ledger / "log"
        return [line.split() for line in log.read_text().splitlines()] if log.exists() else []

    def stop(self):
        self.process.kill()
        self.process.wait()


def test_a_user_exchanges_through_the_gift_provider(devices, request, tmp_path):
    """Through a provider (`--gift-provider`), as a real deployment runs: the confirmation does not
    say the codes are for testing, what the provider cannot deliver is 休止, the request's page
    says 申請中 while the provider takes its time and, reloaded, shows the provider's code, and
    the provider made one order for it."""
    sandbox = Sandbox(tmp_path)
    server = Server(server_binary(request.config), tmp_path / "data", tmp_path / "server.log", request.config.getoption("--faketime"),
                    extra=["--gift-provider", sandbox.url, "--gift-provider-credentials", str(sandbox.credentials)])
    try:
        server.wait_until_healthy()
        b: Browser = devices("phone", server)
        email = "provider-phone@example.jp"
        b.sign_in_as(server.seed_user(STARTING_POINTS))
        b.open("/points", "provider-guest-points")
        register(b, email, "provider", server)
        # The provider's list of products is read at start, in the background (4 s here): until
        # it is, everything is offered. Reloaded until it has been.
        b.open("/exchange", "provider-options")
        for attempt in range(10):
            if "休止" in option_card(b, "電子マネー 500円分").text:
                break
            time.sleep(1)
            b.refresh(f"provider-options-{attempt}")
        b.expect("テスト用" not in b.text(), "a provider's codes are not said to be for testing")
        emoney = option_card(b, "電子マネー 500円分")
        b.expect("休止" in emoney.text and not b.find_all("a", emoney), f"e-money, which the provider cannot deliver, is 休止: {emoney.text!r}")
        b.follow(b.link("交換する", option_card(b, OPTION)), "provider-confirmation")
        b.expect("テスト用" not in b.text(), "the confirmation does not say the codes are for testing")
        b.follow(request_button(b), "provider-requested")
        b.expect(b.driver.current_url.endswith("/exchange/history/1"), f"the request's page, not {b.driver.current_url}")
        b.expect("申請中" in b.find("main .status").text, f"申請中 while the provider takes 4 s: {b.find('main .status').text!r}")
        b.expect("再読み込み" in b.find("main").text, "the page says to reload it later")
        # Reloaded as the page asks (no automatic refresh: axe counts one as a timing barrier).
        for attempt in range(15):
            if "交換完了" in b.find("main .status").text:
                break
            time.sleep(2)
            b.refresh(f"provider-reloaded-{attempt}")
        b.expect("交換完了" in b.find("main .status").text, "reloaded, the page shows 交換完了 within 30 s")
        code = b.find("main .gift-code code").text.strip()
        orders = sandbox.orders()
        b.expect(len(orders) == 1 and orders[0][1] == "gift-300" and orders[0][2] == code,
                 f"one order, for gift-300, whose code {code!r} the page shows: {orders}")
        b.expect(b.balance() == STARTING_POINTS - COST, f"the balance is {STARTING_POINTS - COST}pt: {b.balance()}")
        b.assert_no_problems()
    finally:
        server.stop()
        sandbox.stop()
