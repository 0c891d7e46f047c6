"""Two server processes on one data folder, as the README allows: what one counts or writes, the
other sees. Plain HTTP, no browser: the login limits (five failures lock an address for 15
minutes, whichever process they reached) and the audit log's chain (`pointapp audit verify`)."""

import http.client
import re
import shutil
import subprocess
import tempfile
import urllib.parse
from pathlib import Path

import pytest

from servers import Server, server_binary


class Client:
    """One browser's cookies and CSRF token over plain HTTP, against whichever server it is sent to."""

    def __init__(self):
        self.cookies: dict[str, str] = {}

    def request(self, server: Server, method: str, path: str, form: dict | None = None) -> tuple[int, str]:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        for header in response.msg.get_all("Set-Cookie") or []:
            name, value = header.split(";")[0].split("=", 1)
            self.cookies[name] = value
        connection.close()
        return response.status, text

    def csrf(self, server: Server, path: str) -> str:
        _, page = self.request(server, "GET", path)
        return re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)


@pytest.fixture
def two_servers(request):
    folder = Path(tempfile.mkdtemp(prefix="pointapp-two-"))
    binary = server_binary(request.config)
    servers = [Server(binary, folder / "data", folder / f"server-{n}.log", request.config.getoption("--faketime")) for n in (1, 2)]
    for server in servers:
        server.wait_until_healthy()
    yield servers
    for server in servers:
        server.assert_alive()
        assert server.stop() == 0
    shutil.rmtree(folder)


def test_two_processes_share_the_login_limits(two_servers):
    first, second = two_servers
    guesser = Client()
    guesser.request(first, "GET", "/login")
    csrf = guesser.csrf(first, "/login")
    # Five wrong passwords for one address, spread over both processes.
    for number in range(5):
        status, _ = guesser.request((first, second)[number % 2], "POST", "/login",
                                    {"csrf": csrf, "email": "hanako@example.jp", "password": "wrong guess"})
        assert status == 303
    for server in (first, second):
        status, page = guesser.request(server, "POST", "/login", {"csrf": csrf, "email": "hanako@example.jp", "password": "wrong guess"})
        assert status == 429, f"the sixth guess, on port {server.port}"
        assert "しばらくお待ちください" in page


def test_audit_verify_finds_a_changed_byte_in_a_data_folder(two_servers):
    first, second = two_servers
    first.create_operator("ops@example.jp", "correct horse battery")
    console = Client()
    console.request(first, "GET", "/admin/login")
    for server in (first, second, first, second):  # each refused sign-in an entry, from either process
        csrf = console.csrf(server, "/admin/login")
        status, _ = console.request(server, "POST", "/admin/login",
                                    {"csrf": csrf, "email": "ops@example.jp", "password": "wrong guess here"})
        assert status == 303

    def verify() -> subprocess.CompletedProcess:
        return subprocess.run([str(first.binary), "audit", "verify", "--data", str(first.data)], capture_output=True, text=True)

    intact = verify()
    assert intact.returncode == 0, intact.stdout + intact.stderr
    assert "intact: 5 entries" in intact.stdout  # the operator made, then four refused sign-ins

    # One byte of the third entry, edited in its file as anyone with the folder could.
    entries = sorted(p for p in (first.data / "audit").iterdir() if p.name.endswith(".json") and p.name[0].isdigit())
    third = entries[-3]  # names count down: the oldest last
    raw = third.read_bytes()
    at = raw.index(b'"operatorEmail":"') + len(b'"operatorEmail":"')
    third.write_bytes(raw[:at] + b"O" + raw[at + 1:])
    broken = verify()
    assert broken.returncode == 1
    assert "entry #3 was changed" in broken.stdout
