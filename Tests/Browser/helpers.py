"""A person's browser for the tests: every page it reaches is screenshotted and checked (a real
page, no severe console entry, no serious or critical axe-core violation).

Problems found on a page are recorded, printed at once and reported together by
`assert_no_problems()` at the end of a test, so that one run lists every failing page; what the
walk needs in order to go on (an element to click) is asserted at once.
"""

import base64
import email
import email.policy
import io
import re
import time
import uuid
from pathlib import Path

import axe_selenium_python
import pyotp
import zxingcpp
from PIL import Image
from selenium.common.exceptions import NoSuchElementException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

AXE_SCRIPT = (Path(axe_selenium_python.__file__).parent / "node_modules" / "axe-core" / "axe.min.js").read_text()

# Runs axe on the whole document and hands back what a report needs.
AXE_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document).then(results => done({
  version: axe.version, url: results.url,
  passes: results.passes.length,
  violations: results.violations.map(rule => ({
    id: rule.id, impact: rule.impact, help: rule.help,
    nodes: rule.nodes.map(node => ({target: node.target, summary: node.failureSummary})),
  })),
})).catch(error => done({error: String(error && error.stack || error)}));
"""

FAILING_IMPACTS = {"serious", "critical"}

# What Chrome shows instead of a page, e.g. when Back reaches the result of a POST.
CHROME_ERROR_MARKS = ("ERR_CACHE_MISS", "フォームの再送信", "Confirm Form Resubmission")

POINTS = re.compile(r"(-?[\d,]+)\s*pt")


def points(text: str) -> int:
    """The first amount written as `1,234pt` in `text`."""
    found = POINTS.search(text)
    assert found, f"no amount in points in {text!r}"
    return int(found.group(1).replace(",", ""))


class Browser:
    def __init__(self, driver: WebDriver, base_url: str, window: str, size: tuple[int, int], screenshots: Path):
        self.driver = driver
        self.base_url = base_url
        self.window = window
        self.size = size
        self.screenshots = screenshots
        self.pages = 0
        self.page_name = ""
        self.problems: list[tuple[str, str]] = []
        self.restored = False
        self.fit_viewport()

    def fit_viewport(self):
        """Makes the page's viewport the window's size: headless Chromium's windows are at least 500
        pixels wide and take room for a frame. A phone's viewport is a mobile one (the page's
        viewport meta tag applies, scrollbars overlay)."""
        width, height = self.size
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})

    def new_tab(self):
        self.driver.switch_to.new_window("tab")
        self.fit_viewport()

    def sign_in_as(self, session: str):
        """Comes back as the user of `session` (a seeded one): sets the session cookie, on the
        site's origin (/healthz, a plain-text endpoint, not a page to check)."""
        self.driver.get(self.base_url + "/healthz")
        self.driver.add_cookie({"name": "pointapp_session", "value": session, "path": "/", "httpOnly": True})

    # Going places. Each returns whether a real page of the site was reached (and checked).

    def open(self, path: str, slug: str, expected_status: int | None = None) -> bool:
        """Types the address. `expected_status`: the page is an error page with that status."""
        self.driver.get(self.base_url + path)
        self.restored = False
        return self.check(slug, expected_status)

    def follow(self, element: WebElement, slug: str, expected_status: int | None = None) -> bool:
        """Clicks a link or a form's button and waits for the page it leads to."""
        self.navigate(lambda: self.click(element))
        return self.check(slug, expected_status)

    def back(self, slug: str) -> bool:
        self.navigate(self.driver.back)
        return self.check(slug)

    def refresh(self, slug: str) -> bool:
        self.navigate(self.driver.refresh)
        return self.check(slug)

    def navigate(self, action):
        """Does `action` and waits until another document (a new one, or one Back restores) has
        loaded: the one left is tagged, and Chromium may refuse scripts while it navigates."""
        tag = uuid.uuid4().hex
        self.driver.execute_script("window.pointappTestPage = arguments[0]", tag)
        action()
        WebDriverWait(self.driver, 15, ignored_exceptions=(WebDriverException,)).until(lambda driver: driver.execute_script(
            "return window.pointappTestPage !== arguments[0] && document.readyState === 'complete'", tag))
        # A page tagged before was left earlier and is back as it was: Chrome's back/forward cache.
        self.restored = self.driver.execute_script("return window.pointappTestPage !== undefined")

    def click(self, element: WebElement):
        """Clicks as a person does, with the element in the middle of the screen (never under the
        header).

        On a page wider than the window (a problem check_width reports), Chromium's viewport is
        wider than the screen and chromedriver's click lands beside the element, on nothing: the
        element is then clicked by script, so that the walk goes on and finds the page's other
        problems instead of waiting for a page that never comes."""
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        if self.driver.execute_script("return innerWidth") > self.size[0]:
            self.driver.execute_script("arguments[0].click()", element)
        else:
            element.click()

    def tick(self, field: WebElement):
        """Chooses a radio button or checkbox by clicking its label, the text a person taps."""
        labels = field.find_elements(By.XPATH, "ancestor::label[1]") \
            or self.find_all(f"label[for='{field.get_attribute('id')}']")
        assert labels, f"{self.page_name}: the option {field.get_attribute('value')!r} has no label"
        label = labels[0]
        self.click(label)
        assert field.is_selected(), f"{self.page_name}: clicking the label {label.text!r} did not choose its option"

    # Reading the page.

    def find(self, selector: str, within: WebElement | None = None) -> WebElement:
        return (within or self.driver).find_element(By.CSS_SELECTOR, selector)

    def find_all(self, selector: str, within: WebElement | None = None) -> list[WebElement]:
        return (within or self.driver).find_elements(By.CSS_SELECTOR, selector)

    def link(self, text: str, within: WebElement | None = None) -> WebElement:
        """The link or button whose visible text contains `text`."""
        for element in self.find_all("a, button", within):
            if text in element.text:
                return element
        raise AssertionError(f"{self.page_name}: no link or button {text!r} on {self.driver.current_url}")

    def text(self) -> str:
        return self.find("body").text

    def balance(self) -> int:
        """The balance in the header, as every page shows it."""
        try:
            return points(self.find("header .balance").text)
        except NoSuchElementException:
            raise AssertionError(f"{self.page_name}: no balance in the header of {self.driver.current_url}")

    # Recording problems.

    def expect(self, condition: bool, message: str):
        if not condition:
            if self.restored:
                message += " (the page was restored from Chrome's back/forward cache, not loaded again)"
            self.problem(message)

    def problem(self, message: str):
        print(f"PROBLEM [{self.page_name}] {message}")
        self.problems.append((self.page_name, message))

    def assert_no_problems(self):
        """Fails with every problem found, each once with the pages it was found on."""
        pages: dict[str, list[str]] = {}
        for page, message in self.problems:
            pages.setdefault(message, []).append(page)
        assert not pages, f"{len(self.problems)} problem(s) on {self.pages} pages:\n" + "\n".join(
            f"- {message}\n    on {len(names)} page(s): {', '.join(names)}" for message, names in pages.items())

    # The checks of every page.

    def check(self, slug: str, expected_status: int | None = None) -> bool:
        self.pages += 1
        self.page_name = f"{self.window}-{self.pages:02d}-{slug}"
        self.screenshot()
        self.check_console(expected_status)
        if not self.is_real_page():
            return False
        self.check_width()
        self.check_axe()
        return True

    def check_width(self):
        """The page fits the window's width: nothing to scroll sideways (a phone would zoom out)."""
        viewport, page = self.driver.execute_script("return [innerWidth, document.documentElement.scrollWidth]")
        self.expect(viewport == self.size[0] and page <= self.size[0],
                    f"the page is wider than the window ({page}px in a {viewport}px viewport, for {self.size[0]}px)")

    def screenshot(self):
        """The whole page, not only what fits in the window (from the top, where sticky parts
        belong)."""
        self.driver.execute_script("window.scrollTo(0, 0)")
        metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        width = metrics["cssLayoutViewport"]["clientWidth"]
        height = max(metrics["cssContentSize"]["height"], metrics["cssLayoutViewport"]["clientHeight"])
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        })
        (self.screenshots / f"{self.page_name}.png").write_bytes(base64.b64decode(shot["data"]))

    def is_real_page(self) -> bool:
        url = self.driver.current_url
        source = self.driver.page_source
        marks = [mark for mark in CHROME_ERROR_MARKS if mark in source]
        if url.startswith("chrome-error://") or marks:
            self.problem(f"not a page of the site but Chrome's error page at {url} (shows {', '.join(marks) or url})")
            return False
        return True

    def check_console(self, expected_status: int | None):
        """Fails on every SEVERE entry (script errors, CSP violations, failed loads), except the
        line Chrome writes for the page's own status when the page is an expected error page."""
        url = self.driver.current_url
        for entry in self.driver.get_log("browser"):
            if entry["level"] != "SEVERE":
                continue
            message = entry["message"]
            if expected_status and entry.get("source") == "network" and message.startswith(url + " ") \
                    and f"status of {expected_status} " in message:
                continue
            self.problem(f"console {entry['level']} ({entry.get('source')}): {message}")

    def check_axe(self):
        self.driver.execute_script(AXE_SCRIPT)
        results = self.driver.execute_async_script(AXE_RUN)
        assert results and "error" not in results, f"{self.page_name}: axe-core did not run: {results}"
        assert results["version"] and results["passes"] > 0 and results["url"] == self.driver.current_url, \
            f"{self.page_name}: axe-core did not check this page: {results}"
        for rule in results["violations"]:
            for node in rule["nodes"]:
                line = f"axe {rule['id']} ({rule['impact']}): {rule['help']} at {' '.join(map(str, node['target']))}" \
                       f" -- {' '.join((node['summary'] or '').split())}"
                if rule["impact"] in FAILING_IMPACTS:
                    self.problem(line)
                else:
                    print(f"note [{self.page_name}] {line}")


class Authenticator:
    """An operator's authenticator app: pyotp (a real TOTP client) with the secret the enrolment
    page gave, its codes made for the server's clock (`--faketime` too), each step used once (as
    the server allows: the current one, or the next within its drift); and the recovery codes the
    page showed once."""

    def __init__(self, server):
        self.server = server
        self.totp = None
        self.last_step = None
        self.recovery_codes: list[str] = []

    def code(self) -> str:
        while True:
            step = int(self.server.now().timestamp() // 30)
            use = step if self.last_step is None or step > self.last_step else self.last_step + 1
            if use <= step + 1:
                self.last_step = use
                return self.totp.at(use * 30)
            time.sleep(1)

    def enrol(self, console: Browser, slug: str):
        """On the enrolment page: the QR code read as a phone would (zxing-cpp), the same secret
        as the text beside it; a code of it; the recovery codes kept; on to the console."""
        secret = console.find("main .secret code").text.replace(" ", "")
        uri = console.find("main .uri code").get_attribute("textContent")
        image = Image.open(io.BytesIO(console.find("main .qr img").screenshot_as_png)).convert("RGB")
        read = [result.text for result in zxingcpp.read_barcodes(image)]
        console.expect(read == [uri], f"the QR code reads as the enrolment URI: {read} for {uri}")
        console.expect(f"secret={secret}" in uri, "the secret typed by hand is the QR code's")
        self.totp = pyotp.TOTP(secret)
        console.find("#code").send_keys(self.code())
        console.follow(console.link("登録する", console.find("main")), f"{slug}-recovery-codes")
        self.recovery_codes = [code.text for code in console.find_all("main .recovery-codes code")]
        console.expect(len(self.recovery_codes) == 10, f"ten recovery codes: {self.recovery_codes}")


def sign_in_operator(console: Browser, email: str, password: str, authenticator: Authenticator, slug: str, code: str | None = None):
    """From the console's sign-in page: the password, then the second factor (enrolling the
    authenticator at the first sign-in), and on to the console's first page."""
    for field, value in (("#email", email), ("#password", password)):
        console.find(field).clear()
        console.find(field).send_keys(value)
    console.follow(console.link("ログイン", console.find("main")), f"{slug}-second-factor")
    if console.driver.current_url.endswith("/admin/login/enrol"):
        authenticator.enrol(console, slug)
        console.follow(console.link("コンソールへ進む", console.find("main")), slug)
        return
    console.expect(console.driver.current_url.endswith("/admin/login/code"), f"the code is asked: {console.driver.current_url}")
    console.find("#code").send_keys(code or authenticator.code())
    console.follow(console.link("確認する", console.find("main")), slug)


def mailbox(data: Path, address: str, wait: float = 15.0) -> list[email.message.Message]:
    """The mail the server delivered to `address`, oldest first, read from its outbox folder
    (`data/mail-outbox/*.eml`) as a mail program reads a message: its sender delivers within a
    second or two of the change that queued it. Waits up to `wait` seconds for a first one."""
    deadline = time.time() + wait
    while True:
        folder = data / "mail-outbox"
        found = []
        for path in sorted(folder.glob("*.eml")) if folder.is_dir() else []:
            message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            if [a.addr_spec for a in message["To"].addresses] == [address]:
                found.append(message)
        if found or time.time() > deadline:
            return found
        time.sleep(0.2)


def mailed_link(data: Path, address: str, path: str, wait: float = 15.0) -> str:
    """The newest link to `path` (a regular expression) in the mail to `address`, waiting up to
    `wait` seconds for a message with one (other mail to the address may come first)."""
    deadline = time.time() + wait
    while True:
        for message in reversed(mailbox(data, address, wait=0)):
            match = re.search(rf"https?://\S+{path}", message.get_content())
            if match:
                return match.group(0)
        if time.time() > deadline:
            raise AssertionError(f"no mail to {address} links to {path}")
        time.sleep(0.2)


def wait_for_mail(data: Path, address: str, marker: str, wait: float = 30.0) -> list[email.message.Message]:
    """The messages to `address` whose body or List-Unsubscribe header contains `marker`,
    waiting up to `wait` seconds for a first one."""
    deadline = time.time() + wait
    while True:
        found = [m for m in mailbox(data, address, wait=0) if marker in str(m["List-Unsubscribe"] or "") + m.get_content()]
        if found:
            return found
        if time.time() > deadline:
            raise AssertionError(f"no mail to {address} with {marker!r} within {wait}s")
        time.sleep(0.2)


def verify_address(b: "Browser", server, email: str, slug: str):
    """Opens the verification link of the mail sent to `email` in the same browser, as from a
    phone's mail app, and presses its button."""
    link = mailed_link(server.data, email, r"/account/verify\?token=[0-9a-f]{64}")
    b.expect(link.startswith(server.base_url + "/"), f"the mail links to the site: {link}")
    b.open(link[len(server.base_url):], f"{slug}-verify")
    b.follow(b.find("main form button[type=submit]"), f"{slug}-verified")
    b.expect("メールアドレスを確認しました" in b.text(), f"the address is verified: {b.text()[:200]!r}")
