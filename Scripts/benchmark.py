#!/usr/bin/env python3
"""PointApp's benchmark: the request loop against its limits, each figure a ratio taken in the same
run on the same machine (the machine is shared and noisy: absolute numbers drift, ratios hold).

  P1  GET /surveys for an existing user ÷ GET /healthz, both with wrk          target ≥ 0.45
      (/healthz right before and right after the page: the mean of the two)
  P1-peer  GET /surveys for an existing user ÷ the same page from a peer written
      the usual way in Python (Scripts/peer: Flask + Jinja2 on JSON files,
      gunicorn with 2 sync workers), both with wrk, ours before and after it;
      on files only; without flask and gunicorn it fails, never skips          target ≥ 20
      Beside it, the ceiling: our page's bytes served as they are by the same
      HTTP stack, nothing behind them (pointapp-bench fixed-page), ÷ the peer;
      and the three by each server's CPU a request (its own, whatever wrk takes)
  P2  POST /surveys/{id}/answers (durable writes) ÷ the raw write+fsync+rename
      +folder-fsync loop of the same byte count in the same folder            target ≥ 0.70
      (beside it, the server's CPU an answer: what its code costs, which the disk's pace
      does not move)
  P3  p50 latency of GET /points and of a POST for a user with 10,000 ledger
      entries ÷ the same for a new user                                        target ≤ 1.5
  P4  server RSS after 10,000 distinct users have each made a request          target ≤ 60 MB
  E1  exporting 100,000 responses as CSV: rows/s, beside the raw read of the
      same response files (the limit); the server's RSS growth during it       ≥ 50,000 rows/s, < 20 MB
  L1  60 logins at once, each from its own address, while 12 users browse and
      answer (both stores): every login succeeds; the others see no 5xx and a
      p99 under 250 ms
  X1  20 members exchanging at once while the gift provider (the sandbox) takes
      2 s an order, while 12 users browse and answer: no 5xx, the others' p99
      under 250 ms (their p99 before the burst beside it), every request
      fulfilled, one order each
  and the in-process micro-benchmarks (reducer actions/s, pages/s).

On PostgreSQL (`--postgres`, or `--database-url URL`) the server(s) keep everything in the
database, and the figures are
  P1  as above, with pgbench's built-in select-only load (-S, 16 clients) on
      the same database printed beside it: the database's own limit            target ≥ 0.45
  P2  POST answers ÷ pgbench running the server's write transaction of an answer,
      statement for statement (advisory lock, the state read FOR UPDATE, a quota's
      place for the survey with one, the response row, its survey's counts read FOR
      UPDATE and replaced, the state of the users' mean size replaced, in
      BEGIN/COMMIT, then the mark notified; -M extended: an unnamed statement parsed
      per query, as PostgresNIO sends them) on the same database, before and after
      the load                                                                  target ≥ 0.60
  P3  as above, the long-history user seeded in the database                   target ≤ 1.5
  P4  RSS of an instance on the database after 10,000 distinct users           target ≤ 60 MB
  E1  exporting 100,000 responses as CSV ÷ COPY (SELECT …) TO STDOUT WITH CSV of
      the same rows; the server's RSS growth during it                         ≥ 0.5, < 20 MB
  (P1-peer is not run there: the peer keeps its data in files.)

  --postgres            starts a throwaway cluster (Scripts/pgcluster.py) in a temporary folder,
                        runs on its fresh database and removes it at the end;
  --database-url URL    a server of yours: the run creates a scratch database on it (the URL's
                        role needs CREATEDB), runs everything there and drops it at the end, so
                        the URL's own database is only connected to, never changed.

Needs wrk (apt-get install wrk) and the release build: swift build -c release; on PostgreSQL,
psql and pgbench too (apt-get install postgresql; --postgres runs its server binaries).
Loopback only (but the database's server); every load is bounded in time and count.
"""
import argparse, glob, http.client, json, os, random, re, secrets, shutil, statistics, subprocess, sys, tempfile, time, urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module
crash = import_module("crash-test")
pgcluster = import_module("pgcluster")

results = []
# The server's resident memory after 10,000 distinct users, on either store (issue 41).
P4_LIMIT_MB = 60


def record(name, value, target, ok, detail):
    results.append((name, value, target, ok))
    print("%s = %s (target %s) %s — %s" % (name, value, target, "met" if ok else "MISSED", detail), flush=True)


def wrk(url, seconds, connections, extra=(), script_args=()):
    out = subprocess.run(["wrk", "-t2", "-c%d" % connections, "-d%ds" % seconds, "--latency", *extra, url,
                          *(["--", *script_args] if script_args else [])],
                         capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    wrk.completed = int(re.search(r"(\d+) requests in", out).group(1))
    return rate, int(bad.group(1)) if bad else 0, errors.group(1) if errors else None


def cpu_ticks(pids):
    """The CPU the processes `pids` have used so far, in clock ticks: (user, user and system)."""
    user = system = 0
    for pid in pids:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        user += int(fields[11]); system += int(fields[12])
    return user, user + system


def wrk_cpu(url, seconds, pids, extra=(), connections=32, script_args=()):
    """`wrk` (as P1 runs it, 32 connections, unless told), and the CPU the processes `pids` took
    a request meanwhile, in µs: (rate, non-2xx, socket errors, µs a request). Beside a rate, it
    shows what each server costs whatever share of the cores `wrk` itself takes. Of it, the user
    CPU (our code and its libraries, without the kernel's work for it) is left in `wrk_cpu.user`."""
    user_before, before = cpu_ticks(pids)
    rate, bad, errors = wrk(url, seconds, connections, extra, script_args)
    user_after, after = cpu_ticks(pids)
    tick, requests = 1e6 / os.sysconf("SC_CLK_TCK"), max(wrk.completed, 1)
    wrk_cpu.user = (user_after - user_before) * tick / requests
    return rate, bad, errors, (after - before) * tick / requests


def connection(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=30)


def timed(conn, method, path, cookie, body=None):
    headers = {"Cookie": cookie}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse(); response.read()
    return time.perf_counter() - start, response.status


def answerable(users):
    """The open surveys the benchmark answers, each by up to `users` users: those without a quota,
    or whose places outnumber the users and 1,000. A full one answers 受付終了 without writing
    anything, which would flatter the figures."""
    return [s for s in crash.open_surveys() if not s.get("quota") or crash.places(s) >= max(1000, users)]


def p1(server, seconds, store):
    user = crash.User(server.port)
    base = "http://127.0.0.1:%d" % server.port
    conn = connection(server.port)
    conn.request("GET", "/surveys", headers={"Cookie": user.cookie})
    page = conn.getresponse().read().decode()
    cards = re.findall(r'class="card survey-card([^"]*)"', page)
    rows = (len(cards), sum("closed" in c.split() for c in cards))
    surveys, bad, errors, health_before, health_after = p1_rates(base, user, seconds)
    health = (health_before + health_after) / 2
    ratio = surveys / health
    record("P1", "%.2f" % ratio, "≥ %.2f" % store.p1_target, ratio >= store.p1_target and bad == 0,
           "GET /surveys %.0f req/s (%d rows, %d of them 受付終了, existing user) vs GET /healthz %.0f req/s (%.0f before, %.0f after); %d non-2xx%s%s"
           % (surveys, *rows, health, health_before, health_after, bad, "" if not errors else "; socket errors " + errors,
              store.p1_limit(seconds, health)))


def p1_rates(base, user, seconds):
    """`user`'s GET /surveys with wrk, and GET /healthz right before and right after it: the
    machine's pace drifts, so P1 divides by the mean of the two (as P2 its reference and P1-peer
    ours). (rate, non-2xx, socket errors, /healthz before, /healthz after)"""
    before, _, _ = wrk(base + "/healthz", seconds, 32)
    surveys, bad, errors = wrk(base + "/surveys", seconds, 32, ["-H", "Cookie: " + user.cookie])
    after, _, _ = wrk(base + "/healthz", seconds, 32)
    return surveys, bad, errors, before, after


def p1_alternating(binaries, seconds, rounds):
    """P1 on files for each of `binaries` (label: path), in turns, each run on a fresh data folder:
    a change measured against the commit before it on the same machine in the same sitting."""
    ratios = {label: [] for label in binaries}
    for round in range(rounds):
        for label, binary in binaries.items():
            server = crash.Server(binary, tempfile.mkdtemp(prefix="pointapp-bench-p1-"), crash.free_port())
            server.start()
            try:
                user = crash.User(server.port)
                base = "http://127.0.0.1:%d" % server.port
                surveys, bad, _, before, after = p1_rates(base, user, seconds)
                health = (before + after) / 2
            finally:
                server.stop()
                crash.remove_data(server.data)
            ratios[label].append(surveys / health)
            print("P1 round %d, %s: %.3f (GET /surveys %.0f req/s vs /healthz %.0f req/s; %d non-2xx)"
                  % (round + 1, label, surveys / health, surveys, health, bad), flush=True)
    for label, values in ratios.items():
        print("P1 %s: %s, median %.3f" % (label, ", ".join("%.3f" % v for v in values), statistics.median(values)))


PEER = os.path.join(ROOT, "Scripts/peer")
PEER_TARGET = 20


def p1_peer(server, bench, seconds):
    """P1-peer: GET /surveys for an existing user on our server ÷ the same page from the peer
    (Scripts/peer/app.py: Flask + Jinja2 on JSON files, under gunicorn with 2 sync workers, on a
    fresh data folder of its own), both with wrk as P1. Ours is measured right before and right
    after the peer, and the ratio takes the mean of the two (the machine is shared). The two
    pages are compared first: the same cards in the same order, their sizes side by side.
    Beside it, the ceiling: our page's bytes served as they are by the same HTTP stack with
    nothing behind them (`pointapp-bench fixed-page`), ÷ the peer: no page of that size, from any
    code of ours, goes faster on this machine. The rates are what the target divides; beside them,
    each server's CPU a request, which `wrk`'s own share of the two cores does not move."""
    def missed(reason):
        record("P1-peer", "—", "≥ %d" % PEER_TARGET, False, reason)

    check = subprocess.run([sys.executable, "-c", "import flask, gunicorn"], capture_output=True, text=True)
    if check.returncode != 0:
        missed("the peer cannot run, flask or gunicorn is missing for %s (%s): pip install -r Scripts/peer/requirements.txt"
               % (sys.executable, check.stderr.strip().splitlines()[-1] if check.stderr.strip() else "import failed"))
        return
    user = crash.User(server.port)
    ours_page = get_page(server.port, "/surveys", user.cookie)[1]
    data = tempfile.mkdtemp(prefix="pointapp-bench-peer-")
    port = crash.free_port()
    log = open(os.path.join(data, "gunicorn.log"), "w+")
    peer = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", "2", "-b", "127.0.0.1:%d" % port, "--chdir", PEER, "app:app"],
                            env=dict(os.environ, PEER_DATA=os.path.join(data, "data")), stdout=log, stderr=subprocess.STDOUT)
    try:
        # A new visitor's first page gives them the cookie; the next is an existing user's.
        first = first_page(peer, port, "/surveys")
        if first is None or first[0] != 200 or not first[2]:
            log.seek(0)
            tail = " | ".join(log.read().strip().splitlines()[-3:])
            missed("the peer did not serve its first page (%s): %s"
                   % ("exited %s" % peer.returncode if peer.poll() is not None else "status %s" % (first[0] if first else "none in 30 s"), tail))
            return
        cookie = first[2]
        status, peer_page, again = get_page(port, "/surveys", cookie)
        if status != 200 or again:
            missed("the peer's visitor was not kept (status %d%s)" % (status, ", a new cookie" if again else ""))
            return
        cards = lambda page: re.findall(r'class="card survey-card([^"]*)" href="([^"]*)"', page.decode())
        same = cards(ours_page) == cards(peer_page)
        base = "http://127.0.0.1:%d/surveys" % server.port
        ours_pids, peer_pids = [server.process.pid], [peer.pid] + gunicorn_workers(peer.pid)
        before, bad, errors, cpu_before = wrk_cpu(base, seconds, ours_pids, ["-H", "Cookie: " + user.cookie])
        rate, peer_bad, peer_errors, peer_cpu = wrk_cpu("http://127.0.0.1:%d/surveys" % port, seconds, peer_pids, ["-H", "Cookie: " + cookie])
        after, bad_after, errors_after, cpu_after = wrk_cpu(base, seconds, ours_pids, ["-H", "Cookie: " + user.cookie])
        ceiling, ceiling_cpu = fixed_page(bench, ours_page, data, seconds)
    finally:
        peer.terminate()
        try:
            peer.wait(timeout=15)
        except subprocess.TimeoutExpired:
            peer.kill()
            peer.wait()
        log.close()
        shutil.rmtree(data, ignore_errors=True)
    ours = (before + after) / 2
    ours_cpu = (cpu_before + cpu_after) / 2
    ratio = ours / rate if rate else float("inf")
    socket_errors = "; ".join("%s socket errors %s" % (who, e) for who, e in (("ours", errors), ("the peer's", peer_errors), ("ours after", errors_after)) if e)
    record("P1-peer", "%.1f" % ratio, "≥ %d" % PEER_TARGET, ratio >= PEER_TARGET and same and bad + peer_bad + bad_after == 0,
           "GET /surveys for an existing user: ours %.0f req/s (%.0f before, %.0f after) vs the peer %.0f req/s (Flask + Jinja2 "
           "on JSON files, gunicorn with 2 sync workers, a connection per request); pages %d B vs %d B, %s (%d cards); "
           "%d/%d/%d non-2xx%s; the ceiling, our page's bytes served as they are by the same HTTP stack with nothing "
           "behind them (pointapp-bench fixed-page), %.0f req/s: %.1f× the peer, ours %.2f of it; by CPU a request "
           "(each server's own, whatever wrk takes of the cores): ours %.1f µs, the peer %.0f µs, %.1f×; the ceiling %.1f µs, %.1f×"
           % (ours, before, after, rate, len(ours_page), len(peer_page),
              "byte for byte the same" if ours_page == peer_page else "the same cards in the same order" if same else "THE CARDS DIFFER",
              len(cards(ours_page)), bad, peer_bad, bad_after, "; " + socket_errors if socket_errors else "",
              ceiling, ceiling / rate, ours / ceiling, ours_cpu, peer_cpu, peer_cpu / ours_cpu, ceiling_cpu, peer_cpu / ceiling_cpu))


def gunicorn_workers(master):
    """The worker processes of the gunicorn whose master is `master`: its children."""
    with open("/proc/%d/task/%d/children" % (master, master)) as f:
        return [int(pid) for pid in f.read().split()]


def fixed_page(bench, page, folder, seconds):
    """Requests a second of `page`'s bytes served by `pointapp-bench fixed-page`, with wrk as P1,
    and the CPU the server took a request (µs)."""
    path = os.path.join(folder, "page.html")
    with open(path, "wb") as f:
        f.write(page)
    port = crash.free_port()
    server = subprocess.Popen([bench, "fixed-page", "--file", path, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        first = first_page(server, port, "/surveys")
        if first is None:
            server.terminate()
            raise SystemExit("pointapp-bench fixed-page did not start: %s" % server.communicate()[1].decode(errors="replace"))
        status, served, _ = first
        if status != 200 or served != page:
            raise SystemExit("pointapp-bench fixed-page served status %d, %d bytes, not the page" % (status, len(served)))
        rate, bad, _, cpu = wrk_cpu("http://127.0.0.1:%d/surveys" % port, seconds, [server.pid])
        if bad:
            raise SystemExit("pointapp-bench fixed-page: %d non-2xx" % bad)
        return rate, cpu
    finally:
        server.terminate()
        server.wait(timeout=15)


def first_page(process, port, path, seconds=30):
    """`get_page` of `path` without a cookie, tried until `process`'s server answers it, while the
    process runs and for `seconds` at most; None if it never did."""
    deadline = time.time() + seconds
    while process.poll() is None and time.time() < deadline:
        try:
            return get_page(port, path, None)
        except OSError:
            time.sleep(0.1)
    return None


def get_page(port, path, cookie):
    """GET `path` on a fresh connection: (status, body, the session cookie set or None)."""
    conn = connection(port)
    conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    session = next((h.split(";")[0] for h in response.msg.get_all("Set-Cookie") or [] if h.startswith("pointapp_session=")), None)
    return response.status, body, session


def p2(server, bench, seconds, users_count, store, surveys):
    users = [crash.User(server.port) for _ in range(users_count)]
    lines = []
    for survey in surveys:
        for user in users:
            body = urllib.parse.urlencode([("csrf", user.csrf)] + crash.answers(survey))
            lines.append("/surveys/%s/answers\t%s\t%s" % (survey["id"], user.cookie, body))
    random.Random(1).shuffle(lines)
    work = tempfile.mkdtemp(prefix="pointapp-bench-")
    warm_up, measured = lines[:len(lines) // 5], lines[len(lines) // 5:]
    for name, part in (("warm-up.tsv", warm_up), ("requests.tsv", measured)):
        with open(os.path.join(work, name), "w") as f:
            f.write("\n".join(part) + "\n")
    script = os.path.join(work, "post.lua")
    with open(script, "w") as f:
        f.write(LUA)
    url = "http://127.0.0.1:%d/" % server.port
    awards_before = store.awards(server)

    # The disk is shared and its fsync latency drifts: the reference (the raw write loop, or
    # pgbench) runs right before and right after the measured load (users' states already at
    # their working size), and the ratio uses the mean of the two.
    wrk(url, 2, 16, ["-s", script], [os.path.join(work, "warm-up.tsv")])
    posted = wrk.completed
    raw_before, _ = store.reference(server, bench, work, users_count, surveys)
    # With the server's own CPU an answer (all its threads: event loops and file threads), which a
    # change of its code moves whatever the disk does to the rate; and its user CPU alone, which the
    # file system's work (its inode search most) does not blur.
    rate, bad, errors, cpu = wrk_cpu(url, seconds, [server.process.pid], ["-s", script], 16, [os.path.join(work, "requests.tsv")])
    user_cpu = wrk_cpu.user
    posted += wrk.completed
    raw_after, size = store.reference(server, bench, work, users_count, surveys)
    raw = (raw_before + raw_after) / 2
    store.reference_done()
    shutil.rmtree(work)
    # Each POST must have been an award, hence a write: a pair sent twice (too few users for the
    # rate) would answer without writing and flatter the figure.
    awards = store.awards(server) - awards_before
    if awards < posted:
        raise SystemExit("P2: %d POSTs but %d awards: some pairs were sent twice; use more --post-users" % (posted, awards))
    ratio = rate / raw
    record("P2", "%.2f" % ratio, "≥ %.2f" % store.p2_target, ratio >= store.p2_target and bad == 0,
           "POST answers %.0f req/s (each a durable write, 16 connections, %d distinct user×survey pairs; the server's CPU %.0f µs an answer, %.0f of it user) vs %s; %d non-3xx%s"
           % (rate, len(measured), cpu, user_cpu, store.reference_detail % (raw, size, raw_before, raw_after) + store.reference_note(rate),
              bad, "" if not errors else "; socket errors " + errors))


def post_form(port, path, cookie, fields, client):
    """POSTs a form as a browser behind the trusted proxy at `client` would; (status, Location,
    the session cookie it set or None, seconds)."""
    conn = connection(port)
    conn.timeout = 120
    start = time.perf_counter()
    conn.request("POST", path, body=urllib.parse.urlencode(fields), headers={
        "Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": client})
    response = conn.getresponse(); response.read()
    seconds = time.perf_counter() - start
    session = next((h.split(";")[0] for h in response.msg.get_all("Set-Cookie") or [] if h.startswith("pointapp_session=")), None)
    return response.status, response.getheader("Location"), session, seconds


def keep_browsing(port, user, number, surveys, done, sample):
    """One of the others of L1 and X1 until `done`: the surveys, the points, an answer every third
    request (each user's own turn through `surveys`); `sample(seconds, status)` for each."""
    conn, step = connection(port), 0
    while not done.is_set():
        if step % 3 == 2 and step // 3 < len(surveys):
            survey = surveys[(number + step // 3) % len(surveys)]
            body = urllib.parse.urlencode([("csrf", user.csrf)] + crash.answers(survey))
            took, status = timed(conn, "POST", "/surveys/%s/answers" % survey["id"], user.cookie, body)
        else:
            took, status = timed(conn, "GET", ("/surveys", "/points")[step % 2], user.cookie)
        sample(took, status)
        step += 1


def login_burst(binary, store, logins=60, browsers=12):
    """L1: `logins` accounts log in at once, each from its own address (X-Forwarded-For from the
    trusted proxy 127.0.0.1), while `browsers` users keep browsing and answering; every login must
    succeed, and the others see no 5xx and a p99 under 250 ms. bcrypt at its production cost (12)."""
    server = crash.Server(binary, tempfile.mkdtemp(prefix="pointapp-bench-burst-"), crash.free_port(),
                          list(store.extra) + ["--trusted-proxies", "127.0.0.1"])
    server.start()
    try:
        import threading
        password = "roguin basuto tesuto"
        # The accounts, registered beforehand (each from its own address too: a client may
        # try 20 a minute).
        accounts = []
        for number in range(logins):
            user = crash.User(server.port)
            email = "burst-%d@example.jp" % number
            status, location, _, _ = post_form(server.port, "/register", user.cookie, [("csrf", user.csrf), ("email", email), ("password", password)],
                                               "198.51.100.%d" % (number + 1))
            if location != "/points":
                raise SystemExit("L1: registering %s answered %d %s" % (email, status, location))
            accounts.append(email)
        guests = [crash.User(server.port) for _ in accounts]
        surveys = answerable(browsers)
        others = [crash.User(server.port) for _ in range(browsers)]
        latencies, statuses, done = [], [], threading.Event()
        lock = threading.Lock()

        def sample(took, status):
            with lock:
                latencies.append(took)
                statuses.append(status)

        def browse(number):
            keep_browsing(server.port, others[number], number, surveys, done, sample)

        outcomes = [None] * logins
        start = threading.Barrier(logins + 1)

        def log_in(number):
            start.wait()
            guest = guests[number]
            outcomes[number] = post_form(server.port, "/login", guest.cookie,
                                         [("csrf", guest.csrf), ("email", accounts[number]), ("password", password)],
                                         "203.0.113.%d" % (number + 1))

        browsing = [threading.Thread(target=browse, args=(n,)) for n in range(browsers)]
        for thread in browsing:
            thread.start()
        time.sleep(1)  # the browsers' pace before the burst
        burst = [threading.Thread(target=log_in, args=(n,)) for n in range(logins)]
        for thread in burst:
            thread.start()
        began = time.perf_counter()
        start.wait()
        for thread in burst:
            thread.join()
        burst_seconds = time.perf_counter() - began
        done.set()
        for thread in browsing:
            thread.join()
        succeeded = sum(1 for status, location, session, _ in outcomes if status == 303 and location == "/points" and session)
        slowest = max(seconds for *_, seconds in outcomes)
        server_errors = sum(1 for status in statuses if status >= 500)
        ordered = sorted(latencies)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        ok = succeeded == logins and server_errors == 0 and p99 < 250
        record("L1", "%d/%d logins, others' p99 %.0f ms" % (succeeded, logins, p99), "all, no 5xx, p99 < 250 ms", ok,
               "%d logins at once, each from its own address, in %.1f s (the slowest answered after %.1f s); meanwhile %d users "
               "browsing and answering made %d requests, %d of them 5xx, p50 %.1f ms, p99 %.1f ms"
               % (logins, burst_seconds, slowest, browsers, len(latencies), server_errors,
                  ordered[len(ordered) // 2] * 1000 if ordered else 0, p99))
    finally:
        server.stop()
        crash.remove_data(server.data)


def exchange_burst(binary, store, exchangers=20, browsers=12, provider_seconds=2):
    """X1: `exchangers` members send their exchange at once while the gift provider (the sandbox)
    takes `provider_seconds` an order, and `browsers` other users keep browsing and answering: the
    others see no 5xx and keep their p99 (beside the same load's p99 before the burst); every
    request ends 交換完了, the provider ordered each once. The calls run outside any user's lock
    and transaction: a slow provider holds no connection the others need."""
    import threading
    sandbox = crash.Sandbox(tempfile.mkdtemp(prefix="pointapp-bench-provider-"), faults={"delay": provider_seconds})
    sandbox.start()
    data = tempfile.mkdtemp(prefix="pointapp-bench-exchange-")
    crash.Console.create(binary, data, store.commands)
    server = crash.Server(binary, data, crash.free_port(), list(store.extra) + sandbox.options(timeout=provider_seconds + 8))
    server.start()
    try:
        # Members who can exchange: registered, verified, 5,000 pt from a survey an operator published.
        bonus = crash.exchange_survey(crash.Console(server.port))
        members = []
        for number in range(exchangers):
            user, email, password = crash.User(server.port), "x1-%d@example.jp" % number, "koukan benchi %d" % number
            if not (user.sign_in(server.port, "/register", email, password)
                    and user.verify(server.port, [os.path.join(data, "mail-outbox")], email)
                    and user.answer(server.port, bonus) == "paid"):
                raise SystemExit("X1: member %s could not be made ready to exchange" % email)
            members.append((user, password))
        surveys = answerable(browsers)
        others = [crash.User(server.port) for _ in range(browsers)]
        samples, phase, done, lock = [], ["before"], threading.Event(), threading.Lock()

        def sample(took, status):
            with lock:
                samples.append((phase[0], took, status))

        def browse(number):
            keep_browsing(server.port, others[number], number, surveys, done, sample)

        outcomes = [None] * exchangers
        start = threading.Barrier(exchangers + 1)

        def exchange(number):
            user, password = members[number]
            start.wait()
            began = time.perf_counter()
            outcomes[number] = (user.exchange(server.port, "digital-gift-300", password), time.perf_counter() - began)

        browsing = [threading.Thread(target=browse, args=(n,)) for n in range(browsers)]
        for thread in browsing:
            thread.start()
        time.sleep(4)  # the others' pace before the burst
        burst = [threading.Thread(target=exchange, args=(n,)) for n in range(exchangers)]
        for thread in burst:
            thread.start()
        with lock:
            phase[0] = "during"
        start.wait()
        for thread in burst:
            thread.join()
        time.sleep(provider_seconds + 2)  # the orders the forms stopped waiting for end meanwhile
        done.set()
        for thread in browsing:
            thread.join()
        # Every request ends 交換完了, ordered once.
        deadline, fulfilled = time.time() + 30, 0
        while time.time() < deadline:
            fulfilled = 0
            for user, _ in members:
                conn = connection(server.port)
                conn.request("GET", "/exchange/history/1", headers={"Cookie": user.cookie})
                fulfilled += "交換完了" in conn.getresponse().read().decode()
            if fulfilled == exchangers:
                break
            time.sleep(1)
        keys = crash.CodeKeys(store.extra[-1] if store.commands else data + ".code-keys")
        _, twice, orders = sandbox.records(keys)
        requested = sum(1 for (outcome, _), _ in outcomes if outcome == "requested")

        def p99(phase_name):
            ordered = sorted(took for name, took, _ in samples if name == phase_name)
            return (ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000 if ordered else 0), len(ordered)

        (before, n_before), (during, n_during) = p99("before"), p99("during")
        errors = sum(1 for _, _, status in samples if status >= 500)
        slowest = max(seconds for _, seconds in outcomes)
        # A form waits for its first call at most 3 s: answered sooner, it showed the code at once.
        at_once = sum(1 for _, seconds in outcomes if seconds < 2.9)
        ok = errors == 0 and during < 250 and requested == exchangers and fulfilled == exchangers and orders == exchangers and not twice
        record("X1", "others' p99 %.0f ms during the burst (%.0f ms before), %d/%d fulfilled" % (during, before, fulfilled, exchangers),
               "no 5xx, p99 < 250 ms, all fulfilled once", ok,
               "%d exchanges at once, the provider taking %d s an order: %d acknowledged (%d of the forms answered within the "
               "provider's time, with the code; the slowest after %.1f s: a form waits at most 3 s, then shows 申請中), %d ended "
               "交換完了, %d orders at the provider; meanwhile %d users "
               "browsing and answering made %d requests before the burst and %d during it, %d of them 5xx"
               % (exchangers, provider_seconds, requested, at_once, slowest, fulfilled, orders, browsers, n_before, n_during, errors))
    finally:
        server.stop()
        sandbox.stop()
        crash.remove_data(server.data)
        shutil.rmtree(os.path.dirname(sandbox.ledger), ignore_errors=True)


class Files:
    """The default: the server keeps everything in its data folder."""
    extra = ()
    commands = ()  # the store's options for the other commands (create-operator)
    p1_target, p2_target = 0.45, 0.70
    reference_detail = "raw loop %.0f writes/s of %d bytes in the same folder (%.0f before the load, %.0f after)"

    def reference(self, server, bench, work, users_count, surveys):
        """The raw write+fsync+rename+folder-fsync loop of the users' mean file size, in their folder."""
        folder = os.path.join(server.data, "users")
        sizes = [os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder) if n.endswith(".json")]
        size = int(statistics.mean(sizes))
        out = subprocess.run([bench, "raw-writes", "--folder", folder, "--bytes", str(size), "--seconds", "4"],
                             capture_output=True, text=True, check=True).stdout
        return float(out), size

    def reference_done(self):
        pass

    def reference_note(self, rate):
        return ""

    def p1_limit(self, seconds, health):
        return ""

    def awards(self, server):
        folder = os.path.join(server.data, "users")
        awards = 0
        for name in os.listdir(folder):
            if name.endswith(".json") and not name.startswith(("raw-", ".")):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    state = json.load(f)  # a record: `{"version": n, "record": …}`
                awards += state.get("record", state)["progress"]["answeredCount"]
        return awards

    def e1_seed(self, data, rows):
        """`rows` copies of the survey's one response file, each its own respondent; how many
        responses the survey has then."""
        folder = os.path.join(data, "responses")
        [name] = [n for n in os.listdir(folder) if n.startswith("food-001~")]
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            text = f.read()
        respondent = name[len("food-001~"):-len(".json")]
        for n in range(rows):
            other = "r-%016x" % n
            with open(os.path.join(folder, "food-001~%s.json" % other), "w", encoding="utf-8") as f:
                f.write(text.replace(respondent, other))
        return rows + 1

    def e1_limit(self, data, rows):
        """The raw read of the same files: listed, opened and read, one by one."""
        folder = os.path.join(data, "responses")
        start = time.monotonic()
        count = 0
        for name in sorted(os.listdir(folder)):
            if name.startswith("food-001~"):
                with open(os.path.join(folder, name), "rb") as f:
                    f.read()
                count += 1
        return count / (time.monotonic() - start), "the raw read of the same %d files" % count

    def seed(self, server, bench):
        """Seeds the user with 10,000 movements and a session; their id, the session cookie's value
        and what their history takes."""
        big_id, session = subprocess.run([bench, "seed-user", "--data", server.data, "--entries", "10000"],
                                         capture_output=True, text=True, check=True).stdout.split()
        size = os.path.getsize(os.path.join(server.data, "users", big_id + ".json"))
        archive = os.path.join(server.data, "user-archive")
        archived = [os.path.getsize(os.path.join(archive, n)) for n in os.listdir(archive) if n.startswith(big_id + "~")]
        return big_id, session, "10,000 movements: state file %d KB, archive %d files, %d KB" % (size // 1024, len(archived), sum(archived) // 1024)

    def p4_counts(self):
        return None

    def p4_detail(self, data, before):
        files = len([n for n in os.listdir(os.path.join(data, "users")) if n.endswith(".json")])
        return "%d user files" % files


class Postgres:
    """The server(s) keep everything in a PostgreSQL database (`--database-url`)."""
    p1_target, p2_target = 0.45, 0.60
    reference_detail = ("pgbench %.0f transactions/s of the same write transaction (lock, the state read FOR UPDATE, "
                        "a quota's place for one survey in the list, the response row, its survey's counts read FOR UPDATE and replaced, "
                        "a %d-byte state replaced with its NOTIFY trigger, in BEGIN/COMMIT, then the mark; "
                        "-M extended, 16 clients, %.0f before the load, %.0f after)")
    pgbench_seconds = 5

    def __init__(self, url):
        self.url = url
        # Every server of the run seals gift codes with the keys of one file.
        self.commands = ["--database-url", url]
        self.extra = self.commands + ["--code-keys", os.path.join(tempfile.mkdtemp(prefix="pointapp-bench-keys-"), "code-keys")]
        self.pgbench = pgbench_binary()
        self.filled = False

    def psql(self, sql):
        return psql(self.url, sql)

    def e1_seed(self, data, rows):
        """`rows` copies of one of the survey's responses, each its own respondent, in one
        statement (the database may hold the survey's responses of the loads before); how many
        responses the survey has then."""
        [(name,)] = self.psql("SELECT id FROM responses WHERE id LIKE 'food-001~%' ORDER BY id LIMIT 1")
        respondent = name[len("food-001~"):]
        self.psql("INSERT INTO responses (id, record) SELECT 'food-001~r-' || lpad(to_hex(g), 16, '0'), "
                  "replace(record, '%s', 'r-' || lpad(to_hex(g), 16, '0')) FROM responses, generate_series(0, %d) g "
                  "WHERE id = '%s'" % (respondent, rows - 1, name))
        # As autovacuum leaves a table some time after a bulk load: its statistics taken, and
        # the rows' hint bits set. Otherwise the first reader (the export, measured before COPY)
        # pays for setting them on every page, and COPY, after it, does not.
        self.psql("VACUUM (ANALYZE) responses")
        return int(self.psql("SELECT count(*) FROM responses WHERE id LIKE 'food-001~%'")[0][0])

    def e1_limit(self, data, rows):
        """COPY of the same rows, as CSV, to psql's standard output."""
        start = time.monotonic()
        out = subprocess.run(["psql", self.url, "-c", "COPY (SELECT id, record FROM responses WHERE id LIKE 'food-001~%%' ORDER BY id) TO STDOUT WITH CSV"],
                             capture_output=True, check=True).stdout
        elapsed = time.monotonic() - start
        count = out.count(b"\nfood-001~") + 1
        return count / elapsed, "COPY (SELECT …) TO STDOUT WITH CSV of the same %d rows" % count

    def reference(self, server, bench, work, users_count, surveys):
        """pgbench's rate for the server's write transaction of an answer, statement for statement
        (`UserStates.update` with what the answer records in it): BEGIN; the user's lock; the
        state read for update; for the survey with a quota (one of `surveys`, or none), the place
        and the count read, the count read for update and raised, the place inserted; the
        response row inserted; its survey's counts read for update, then replaced at the version
        read; the state replaced at the version read, its NOTIFY trigger firing; COMMIT; the mark
        notified. On tables like the server's (`bench_…`), over as many users and surveys as P2
        posts for, with a state, a response and counts of the mean sizes of the server's rows.
        (A replace that lost to another commit is not tried again, as the server would.)"""
        def sample(table, column, where, as_bytes):
            """A row's `column` whose length is nearest the mean, as bytes, and the mean."""
            size = int(float(self.psql("SELECT avg(length(%s)) FROM %s WHERE %s" % (column, table, where))[0][0]))
            value = column if as_bytes else "convert_to(%s, 'UTF8')" % column
            found = self.psql("SELECT encode(%s, 'hex') FROM %s WHERE %s ORDER BY abs(length(%s) - %d) LIMIT 1"
                              % (value, table, where, column, size))[0][0]
            return bytes.fromhex(found), size
        state, size = sample("users", "record", "true", False)
        state = (state * (size // len(state) + 1))[:size]
        response = sample("responses", "record", "id NOT LIKE '#%'", False)[0].decode()
        counts = sample("responses", "record", "id LIKE '#counts~%'", False)[0].decode()
        quota = next((i + 1 for i, survey in enumerate(surveys) if survey.get("quota")), 0)
        if not self.filled:
            # Its trigger as the server's (migration 11), on these tables.
            self.psql("DROP TABLE IF EXISTS bench_users, bench_responses, bench_quotas; "
                      "CREATE TABLE bench_users (LIKE users INCLUDING ALL); "
                      "CREATE TABLE bench_responses (LIKE responses INCLUDING ALL); "
                      "CREATE TABLE bench_quotas (LIKE quotas INCLUDING ALL); "
                      "CREATE TRIGGER bench_users_changed AFTER INSERT OR UPDATE OR DELETE ON bench_users "
                      "FOR EACH ROW EXECUTE FUNCTION pointapp_notify_change()")
            self.psql("INSERT INTO bench_users (id, record) SELECT md5('bench' || n), convert_from(decode('%s', 'hex'), 'UTF8') "
                      "FROM generate_series(1, %d) n" % (state.hex(), users_count))
            self.psql("INSERT INTO bench_quotas (id, record) VALUES ('q~s%d', '0')" % quota)
            self.psql("INSERT INTO bench_responses (id, record) SELECT '#counts~s' || n, convert_from(decode('%s', 'hex'), 'UTF8') "
                      "FROM generate_series(1, %d) n" % (counts.encode().hex(), len(surveys)))
            self.psql("VACUUM ANALYZE bench_users")
            self.psql("VACUUM ANALYZE bench_responses")
            self.filled = True
            # The write before responses were recorded with it: lock and read, upsert, with the trigger.
            self.state_only = self.pgbench_write(work, PGBENCH_STATE % {"users": users_count}, state)
        script = PGBENCH % {"users": users_count, "surveys": len(surveys), "quota": quota}
        return self.pgbench_write(work, script, state, response, counts), size

    def pgbench_write(self, work, script_text, state, response=None, counts=None):
        script = os.path.join(work, "write.sql")
        with open(script, "w") as f:
            f.write(script_text)
        variables = ["-D", "state=" + state.decode()]
        if response is not None:
            variables += ["-D", "response=" + response, "-D", "counts=" + counts]
        result = subprocess.run([self.pgbench, "-n", "-M", "extended", "-c", "16", "-j", "2", "-T", str(self.pgbench_seconds),
                                 "-f", script, *variables, self.url], capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit("pgbench failed:\n" + result.stdout + result.stderr)
        failed = re.search(r"number of failed transactions: (\d+)", result.stdout)
        if failed and int(failed.group(1)):
            raise SystemExit("pgbench: %s transactions failed:\n%s" % (failed.group(1), result.stdout))
        return float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", result.stdout).group(1))

    def reference_done(self):
        self.psql("DROP TABLE IF EXISTS bench_users, bench_responses, bench_quotas")
        self.filled = False

    def reference_note(self, rate):
        """The write of the state alone (lock and read, upsert, in BEGIN/COMMIT), without the
        response and its counts: what recording responses in the transaction costs the database."""
        if not getattr(self, "state_only", None):
            return ""
        return ("; the state's write alone (without the response and its counts) runs %.0f/s in pgbench, "
                "POST answers ÷ that = %.2f" % (self.state_only, rate / self.state_only))

    def p1_limit(self, seconds, health):
        """pgbench's built-in select-only load on the same database (its own tables, scale 1): the
        database's limit for a statement at a time, printed beside P1."""
        subprocess.run([self.pgbench, "-i", "-q", "-s", "1", self.url], capture_output=True, text=True, check=True)
        out = subprocess.run([self.pgbench, "-n", "-S", "-M", "extended", "-c", "16", "-j", "2", "-T", str(min(seconds, 5)), self.url],
                             capture_output=True, text=True, check=True).stdout
        self.psql("DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history")
        tps = float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", out).group(1))
        return "; pgbench -S (select-only, 16 clients) %.0f transactions/s, %.2f of /healthz" % (tps, tps / health)

    def awards(self, server):
        rows = self.psql("SELECT coalesce(sum((record::jsonb->'progress'->>'answeredCount')::int), 0) FROM users")
        return int(rows[0][0])

    def seed(self, server, bench):
        big_id, session = subprocess.run([bench, "seed-user", "--database-url", self.url, "--entries", "10000"],
                                         capture_output=True, text=True, check=True).stdout.split()
        size = int(self.psql("SELECT octet_length(record) FROM users WHERE id = '%s'" % big_id)[0][0])
        rows, total = self.psql("SELECT count(*), coalesce(sum(octet_length(record)), 0) FROM user_archive WHERE starts_with(id, '%s~')" % big_id)[0]
        return big_id, session, "10,000 movements: state row %d KB, archive %d rows, %d KB" % (size // 1024, int(rows), int(total) // 1024)

    def p4_counts(self):
        return [int(n) for n in self.psql("SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM sessions)")[0]]

    def p4_detail(self, data, before):
        after = self.p4_counts()
        return "%d new user rows, %d new session rows" % (after[0] - before[0], after[1] - before[1])


# The server's write transaction of an answer (`UserStates.update` holding the user's key, with
# no archive rows, which it writes every 20 movements): ids are random 32-hex-digit strings as
# theirs are; `-D state=…`, `response=…`, `counts=…` the records; each statement as the server
# sends it, and the mark it notifies once the transaction committed.
PGBENCH_LOCK = ("SELECT pg_advisory_xact_lock(:n);\n"
                "SELECT record, version FROM bench_users WHERE id = md5('bench' || :n) FOR UPDATE \\gset user_\n")
PGBENCH_UPSERT = "UPDATE bench_users SET record = :state, version = version + 1 WHERE id = md5('bench' || :n) AND version = :user_version RETURNING 1;\n"
PGBENCH_MARK = "SELECT pg_notify('pointapp_changes', 'mark:19a8f0c2b3d-' || md5(random()::text));\n"
PGBENCH = (r'''\set n random(1, %(users)d)
\set s random(1, %(surveys)d)
BEGIN;
''' + PGBENCH_LOCK + r'''\if :s = %(quota)d
SELECT record, version FROM bench_quotas WHERE id = 'p~s' || :s || '~' || md5('bench' || :n);
SELECT record, version FROM bench_quotas WHERE id = 'q~s' || :s;
SELECT record, version FROM bench_quotas WHERE id = 'q~s' || :s FOR UPDATE \gset quota_
UPDATE bench_quotas SET record = (:quota_record::int + 1)::text, version = version + 1 WHERE id = 'q~s' || :s AND version = :quota_version RETURNING 1;
INSERT INTO bench_quotas (id, record, version) VALUES ('p~s' || :s || '~' || md5(random()::text), 'true', 1) ON CONFLICT (id) DO NOTHING RETURNING 1;
\endif
INSERT INTO bench_responses (id, record, version) VALUES ('s' || :s || '~' || md5(random()::text), :response, 1) ON CONFLICT (id) DO NOTHING RETURNING 1;
SELECT record, version FROM bench_responses WHERE id = '#counts~s' || :s FOR UPDATE \gset counts_
UPDATE bench_responses SET record = :counts, version = version + 1 WHERE id = '#counts~s' || :s AND version = :counts_version RETURNING 1;
''' + PGBENCH_UPSERT + "COMMIT;\n" + PGBENCH_MARK)

# The same without the response and its counts: the state's write alone.
PGBENCH_STATE = "\\set n random(1, %(users)d)\nBEGIN;\n" + PGBENCH_LOCK + PGBENCH_UPSERT + "COMMIT;\n" + PGBENCH_MARK


def psql(url, sql):
    """Runs SQL on the database at `url`; its rows as lists of fields."""
    result = subprocess.run(["psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise RuntimeError("psql: %s" % result.stderr.strip())
    return [line.split("\t") for line in result.stdout.splitlines() if line]


def pgbench_binary():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pgbench"), key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    path = found[-1] if found else shutil.which("pgbench")
    if not path:
        raise SystemExit("pgbench is missing: apt-get install postgresql")
    return path


LUA = r'''
local requests, position, step = {}, 0, 1
function setup(thread)
  thread:set("offset", threads_started or 0)
  threads_started = (threads_started or 0) + 1
end
function init(args)
  for line in io.lines(args[1]) do
    local path, cookie, body = line:match("([^\t]*)\t([^\t]*)\t(.*)")
    requests[#requests + 1] = wrk.format("POST", path, {
      ["Cookie"] = cookie, ["Content-Type"] = "application/x-www-form-urlencoded"}, body)
  end
  position, step = offset, 2
end
function request()
  position = position + step
  return requests[(position % #requests) + 1]
end
'''


def p3(server, bench, samples, store, surveys):
    big_id, big_session, files = store.seed(server, bench)
    # The session the seeding started for the user, as the server would have issued it.
    big_cookie = "pointapp_session=" + big_session
    new = crash.User(server.port)
    conn = connection(server.port)
    timed(conn, "GET", "/points", new.cookie)
    big_get, new_get = [], []
    for _ in range(samples):
        big_get.append(timed(conn, "GET", "/points", big_cookie)[0])
        new_get.append(timed(conn, "GET", "/points", new.cookie)[0])
    conn.request("GET", "/missions", headers={"Cookie": big_cookie})
    big_csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', conn.getresponse().read().decode()).group(1)
    big_post, new_post = [], []
    for survey in surveys:
        for cookie, csrf, into in ((big_cookie, big_csrf, big_post), (new.cookie, new.csrf, new_post)):
            body = urllib.parse.urlencode([("csrf", csrf)] + crash.answers(survey))
            elapsed, status = timed(conn, "POST", "/surveys/%s/answers" % survey["id"], cookie, body)
            if status != 303:
                raise SystemExit("P3 POST answered %d" % status)
            into.append(elapsed)
    get_ratio = statistics.median(big_get) / statistics.median(new_get)
    post_ratio = statistics.median(big_post) / statistics.median(new_post)
    detail = "p50 %.2f ms vs %.2f ms (" + files + ")"
    record("P3 GET /points", "%.2f" % get_ratio, "≤ 1.5", get_ratio <= 1.5,
           detail % (statistics.median(big_get) * 1e3, statistics.median(new_get) * 1e3))
    record("P3 POST answers", "%.2f" % post_ratio, "≤ 1.5", post_ratio <= 1.5,
           detail % (statistics.median(big_post) * 1e3, statistics.median(new_post) * 1e3))


def p4(binary, users, store):
    data = tempfile.mkdtemp(prefix="pointapp-rss-")
    server = crash.Server(binary, data, crash.free_port(), store.extra)
    server.start()  # on a new database, the server makes its tables
    counts = store.p4_counts()
    before = rss(server.process.pid)
    conn = connection(server.port)
    for _ in range(users):
        # A visitor's first page gives them a session id; the second makes its record.
        conn.request("GET", "/surveys")
        response = conn.getresponse()
        response.read()
        cookie = response.getheader("Set-Cookie").split(";")[0]
        elapsed, status = timed(conn, "GET", "/surveys", cookie)
        if status != 200:
            raise SystemExit("P4 GET answered %d" % status)
    after, peak = rss(server.process.pid), hwm(server.process.pid)
    files = store.p4_detail(data, counts)
    server.stop()
    crash.remove_data(data)
    record("P4", "%.1f MB" % (after / 1024), "≤ %d MB" % P4_LIMIT_MB, after / 1024 <= P4_LIMIT_MB,
           "RSS after %d distinct users (%s) = %.1f MB; %.1f MB at start, peak %.1f MB; %.2f of the limit"
           % (users, files, after / 1024, before / 1024, peak / 1024, after / 1024 / P4_LIMIT_MB))


def e1(binary, store, rows):
    """Exports `rows` responses of one survey as CSV through the server, as an operator's
    browser downloads them, sampling the server's RSS meanwhile; beside it, the limit: the raw
    read of the same response files, or COPY of the same rows on PostgreSQL."""
    data = tempfile.mkdtemp(prefix="pointapp-export-")
    crash.Console.create(binary, data, store.commands)
    server = crash.Server(binary, data, crash.free_port(), store.extra)
    server.start()
    # One real response, by a user answering food-001; then as many more as asked, each its own
    # respondent, written where the store keeps them (the server reads them as its own).
    survey = next(s for s in crash.catalog() if s["id"] == "food-001")
    status = crash.User(server.port).answer(server.port, survey)
    if status != "paid":
        raise SystemExit("E1: the seeding answer was not taken (%s)" % status)
    server.stop()
    total = store.e1_seed(data, rows)
    server.start()
    console = crash.Console(server.port)
    before, peak = rss(server.process.pid), [0]
    stop = False

    def sample():
        while not stop:
            peak[0] = max(peak[0], rss(server.process.pid))
            time.sleep(0.02)

    import threading
    # The limit drifts from run to run (COPY between 360,000 and 600,000 rows/s on one machine):
    # it is taken right before and right after the export, and the ratio uses their mean.
    limit_before, _ = store.e1_limit(data, rows)
    sampler = threading.Thread(target=sample)
    sampler.start()
    conn = connection(server.port)
    start = time.monotonic()
    conn.request("GET", "/admin/surveys/food-001/responses.csv?outcome=&from=&to=&cut=29991231-235959", headers={"Cookie": console.cookie})
    response = conn.getresponse()
    lines = 0
    while chunk := response.read(1 << 16):
        lines += chunk.count(b"\n")  # each row ends with CRLF; a chunk may end between the two
    elapsed = time.monotonic() - start
    stop = True
    sampler.join()
    exported = lines - 2
    limit_after, limit_detail = store.e1_limit(data, rows)
    limit = (limit_before + limit_after) / 2
    limit_detail += " at %.0f a second (%.0f before the export, %.0f after)" % (limit, limit_before, limit_after)
    server.stop()
    crash.remove_data(data)
    rate = exported / elapsed
    growth = (peak[0] - before) / 1024
    if exported != total:
        raise SystemExit("E1: exported %d rows of %d" % (exported, total))
    if store.extra:
        record("E1", "%.2f" % (rate / limit), "≥ 0.5", rate / limit >= 0.5 and growth < 20,
               "%d responses exported as CSV at %.0f rows/s (%.1f s) ÷ %s; RSS %.1f MB before, growth %.1f MB (target < 20 MB)"
               % (exported, rate, elapsed, limit_detail, before / 1024, growth))
    else:
        record("E1", "%.0f rows/s" % rate, "≥ 50,000 rows/s", rate >= 50_000 and growth < 20,
               "%d responses exported as CSV in %.1f s, %.2f of %s; RSS %.1f MB before, growth %.1f MB (target < 20 MB)"
               % (exported, elapsed, rate / limit, limit_detail, before / 1024, growth))


def status_kb(pid, field):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(field + r":\s+(\d+) kB", f.read()).group(1))


rss = lambda pid: status_kb(pid, "VmRSS")
hwm = lambda pid: status_kb(pid, "VmHWM")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10, help="duration of each wrk run")
    parser.add_argument("--users", type=int, default=10_000, help="distinct users for P4")
    parser.add_argument("--post-users", type=int, default=3_500, help="users whose answers P2 posts (enough that no pair is sent twice at 4,000 POST/s)")
    database = parser.add_mutually_exclusive_group()
    database.add_argument("--postgres", action="store_true",
                          help="on PostgreSQL: a throwaway cluster (Scripts/pgcluster.py) in a temporary folder, removed at the end")
    database.add_argument("--database-url", metavar="URL",
                          help="on PostgreSQL: a scratch database created on this URL's server (its role needs CREATEDB), dropped at the end")
    parser.add_argument("--pgbench-seconds", type=int, default=Postgres.pgbench_seconds,
                        help="duration of each pgbench run, before and after P2's load (PostgreSQL)")
    parser.add_argument("--p1-against", metavar="BINARY",
                        help="only P1 on files, in alternating runs of this build and BINARY (e.g. the commit before a change)")
    parser.add_argument("--rounds", type=int, default=3, help="with --p1-against: runs of each")
    parser.add_argument("--responses", type=int, default=100_000, help="responses E1 exports")
    parser.add_argument("--only-e1", action="store_true", help="only E1 (the export)")
    parser.add_argument("--only", metavar="LIST", help="only these of p1,peer,p2,p3,l1,x1,p4,e1 (comma-separated), e.g. --only p1,l1")
    parser.add_argument("--binary", metavar="PATH", help="the server to measure instead of .build/release/pointapp (e.g. an earlier commit's, for L1)")
    parser.add_argument("--log-level", default=crash.Server.log_level,
                        choices=["trace", "debug", "info", "notice", "warning", "error", "critical"],
                        help="the servers' log level (default %(default)s; a server's own default, info, writes a line a request)")
    args = parser.parse_args()
    crash.Server.log_level = args.log_level
    binary, bench = (os.path.join(ROOT, ".build/release", name) for name in ("pointapp", "pointapp-bench"))
    if args.binary:
        binary = os.path.abspath(args.binary)
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install wrk")
    if args.p1_against:
        p1_alternating({"this build": binary, "against": os.path.abspath(args.p1_against)}, args.seconds, args.rounds)
        return
    if (args.postgres or args.database_url) and not shutil.which("psql"):
        raise SystemExit("psql is missing: apt-get install postgresql-client")
    Postgres.pgbench_seconds = args.pgbench_seconds
    print("machine: %d cores; %s" % (os.cpu_count(), subprocess.run(["uname", "-sr"], capture_output=True, text=True).stdout.strip()))
    cleanup = []
    try:
        if args.postgres:
            folder = tempfile.mkdtemp(prefix="pointapp-bench-pg-")
            cluster = pgcluster.Cluster(folder)
            cleanup.append(lambda: shutil.rmtree(folder, ignore_errors=True))
            url = cluster.start()
            cleanup.append(cluster.stop)
            where = "a throwaway cluster on 127.0.0.1:%d" % cluster.port
        elif args.database_url:
            url, where, drop = scratch_database(args.database_url)
            cleanup.append(drop)
        if args.postgres or args.database_url:
            store = Postgres(url)
            cleanup.append(lambda: shutil.rmtree(os.path.dirname(store.extra[-1]), ignore_errors=True))
            print("database: PostgreSQL %s, %s" % (store.psql("SHOW server_version")[0][0], where), flush=True)
        else:
            store = Files()
        only = {"e1"} if args.only_e1 else set(args.only.split(",")) if args.only else {"micro", "p1", "peer", "p2", "p3", "l1", "x1", "p4", "e1"}
        # The peer keeps its data in JSON files: beside our server on files only.
        peer = "peer" in only and not store.extra
        if "peer" in only and not peer:
            print("P1-peer: on files only (the peer, Scripts/peer, keeps its data in JSON files): not run on PostgreSQL", flush=True)
        if "micro" in only:
            subprocess.run([bench, "micro", "--templates", os.path.join(ROOT, "Templates")], check=True)
        if only & {"p1", "p2", "p3"} or peer:
            server = crash.Server(binary, tempfile.mkdtemp(prefix="pointapp-bench-data-"), crash.free_port(), store.extra)
            server.start()
            # P2's users and P3's two answer each of them: none may fill.
            surveys = answerable(args.post_users + 2)
            try:
                if "p1" in only:
                    p1(server, args.seconds, store)
                if peer:
                    p1_peer(server, bench, args.seconds)
                if "p2" in only:
                    p2(server, bench, args.seconds, args.post_users, store, surveys)
                if "p3" in only:
                    p3(server, bench, 200, store, surveys)
            finally:
                server.stop()
                crash.remove_data(server.data)
        if "l1" in only:
            login_burst(binary, store)
        if "x1" in only:
            exchange_burst(binary, store)
        if "p4" in only:
            p4(binary, args.users, store)
        if "e1" in only:
            e1(binary, store, args.responses)
    finally:
        for step in reversed(cleanup):
            step()
    print("benchmark: %d of %d targets met" % (sum(ok for *_, ok in results), len(results)))


def scratch_database(url):
    """Creates a database of its own on the server `url` names; its URL, a description, and
    what drops it."""
    name = "pointapp_bench_" + secrets.token_hex(4)
    try:
        psql(url, "CREATE DATABASE %s" % name)
    except RuntimeError as error:
        raise SystemExit("--database-url: cannot create a scratch database (%s); the role needs CREATEDB "
                         "(ALTER ROLE … CREATEDB), or use --postgres" % error)
    parts = urllib.parse.urlsplit(url)

    def drop():
        # The instances have stopped, so their connections are closing; FORCE ends any left.
        for attempt in range(10):
            try:
                psql(url, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)
                return
            except RuntimeError as error:
                if attempt == 9:
                    print("could not drop the scratch database %s: %s" % (name, error), file=sys.stderr)
                time.sleep(0.5)

    return parts._replace(path="/" + name).geturl(), "scratch database %s on %s" % (name, parts.hostname or "its socket"), drop


if __name__ == "__main__":
    main()
