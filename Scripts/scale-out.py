#!/usr/bin/env python3
"""Proves PointApp scales out: two instances behind nginx (Deploy/nginx.conf) on one PostgreSQL.

1. Crashes under load: users answer surveys through nginx while the instances are SIGKILLed at
   random moments (one at a time, each restarted at once, so nginx always has one), and the
   database is restarted once (stopped in immediate mode: every connection cut). While it is
   down every request answers 503 within seconds: never a 500, never a hang. Afterwards every
   award that got its 303 to the completion page is in its user's ledger exactly once, no survey
   paid twice, every state parses and every balance is its ledger's sum; accounts registered
   before the load log in to their own data. Some accounts exchange points during the load, each
   request sent just before a kill, through the sandbox gift provider (crash-test's `Sandbox`:
   slow, answering 503, hanging, dropping, losing answers, refusing e-money for a while, killed
   with every third victim): at the end every exchange acknowledged is in its user's state and
   none is pending, each code is the provider's for its request and in no other, no request was
   ordered twice, each request holds its points once, a failed one is refunded once and a
   fulfilled one never, and every balance is held by its lots.
2. One user sends one survey 50 times at once through nginx, spread over both instances, and
   every other survey once: each survey pays once, the balance is the sum of the rewards. Then a
   browser answers surveys one by one, and after each the points page, from the other instance
   (whose cache held the page's session and state), shows the new balance.
3. X-Forwarded-For names the client only from the trusted proxy: the per-client login limit
   counts the address nginx saw, whatever a client forges, and an untrusted peer's header is
   ignored.
4. Quotas, at the end (instances idle): each survey's count (`quotas`' `q~<survey>`), its
   place records (`p~<survey>~<user>`) and the users whose saved state (or archive) holds a
   completed answer to it agree, user for user, and never pass its places. A place commits with
   its answer, so nothing is settled.

    swift build -c release --product pointapp && python3 Scripts/scale-out.py

Needs nginx and PostgreSQL's server (apt-get install nginx postgresql); runs a throwaway cluster
(Scripts/pgcluster.py) and everything else in a temporary folder, on loopback, ports
--port-base (nginx) and the next two (the instances). Prints its figures and exits non-zero on
any violation; the folder, with the instances' and nginx's logs, is kept when it fails.
"""
import argparse, base64, hashlib, importlib.util, json, os, random, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time, urllib.parse
import http.client

sys.dont_write_bytecode = True  # importing the scripts below leaves no __pycache__ in Scripts/
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import pgcluster  # noqa: E402



# The ledger reasons that take points (PointTransaction.Reason.isCredit is false); the rest add them.
DEBITS = {"exchange", "exchangeHold", "expiry", "adjustmentDebit"}


def is_credit(movement):
    return not DEBITS & set(movement["reason"])

def load_crash_test():
    """Scripts/crash-test.py as a module (its name has a hyphen): its User and answer forms."""
    spec = importlib.util.spec_from_file_location("crash_test", os.path.join(HERE, "crash-test.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


crash = load_crash_test()

HANG = 10.0  # crash-test's User waits this long for an answer: longer is a hang
clock = time.monotonic


def port_free(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def get(port, path, cookie=None, source=None, timeout=HANG):
    """A GET's status, or None when the connection failed or timed out."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0) if source else None)
        c.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        r = c.getresponse(); r.read(); c.close()
        return r.status
    except OSError:
        return None


def tail(path, lines=30, match=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().splitlines()
    except OSError:
        return []
    if match:
        text = [line for line in text if re.search(match, line)]
    return text[-lines:]


class Instance:
    """One pointapp process on the shared database; its stdout and stderr go to a log file."""

    def __init__(self, binary, url, port, folder, extra=()):
        """`extra`: more options (the gift provider's)."""
        self.binary, self.url, self.port, self.folder, self.extra = binary, url, port, folder, list(extra)
        self.log = os.path.join(folder, "instance-%d.log" % port)
        self.process, self.starts = None, 0

    def start(self):
        self.starts += 1
        with open(self.log, "ab") as log:
            log.write(b"==== scale-out: start %d at %.3f\n" % (self.starts, clock()))
            log.flush()
            self.process = subprocess.Popen(
                [self.binary, "--database-url", self.url, "--port", str(self.port), "--trusted-proxies", "127.0.0.1",
                 "--templates", os.path.join(ROOT, "Templates"), "--public", os.path.join(ROOT, "Public"), *self.extra],
                stdout=log, stderr=subprocess.STDOUT, cwd=self.folder, env=dict(os.environ, **crash.EXCHANGE_KNOBS))

    def wait_ready(self, timeout=60):
        deadline = clock() + timeout
        while clock() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("instance :%d exited with %s at start:\n  %s" % (self.port, self.process.returncode, "\n  ".join(tail(self.log, 15))))
            if get(self.port, "/healthz", timeout=2) == 200:
                return
            time.sleep(0.05)
        raise RuntimeError("instance :%d did not answer /healthz within %d s:\n  %s" % (self.port, timeout, "\n  ".join(tail(self.log, 15))))

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        """SIGTERM: the server finishes the requests in flight and exits. False when it had to be
        killed after 10 s."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill(); self.process.wait()
                return False
        return True


class Nginx:
    """nginx with a copy of Deploy/nginx.conf (ports moved to --port-base), everything under `prefix`."""

    def __init__(self, prefix, base):
        self.prefix, self.base, self.process = prefix, base, None
        os.makedirs(os.path.join(prefix, "logs"), exist_ok=True)
        with open(os.path.join(ROOT, "Deploy/nginx.conf"), encoding="utf-8") as f:
            shipped = f.read()
        found = set(re.findall(r"^\s*(?:listen|server)\s+127\.0\.0\.1:(\d+)", shipped, re.M))
        if found != {"8080", "8081", "8082"}:
            raise RuntimeError("Deploy/nginx.conf: expected listen 127.0.0.1:8080 and servers :8081, :8082, found %s" % sorted(found))
        moved = {"8080": base, "8081": base + 1, "8082": base + 2}
        self.conf = os.path.join(prefix, "nginx.conf")
        with open(self.conf, "w", encoding="utf-8") as f:
            f.write(re.sub(r"127\.0\.0\.1:(808[012])\b", lambda m: "127.0.0.1:%d" % moved[m.group(1)], shipped))
        timeout = re.search(r"fail_timeout=(\d+)s", shipped)
        self.fail_timeout = int(timeout.group(1)) if timeout else 10
        self.access_log = os.path.join(prefix, "logs/access.log")
        self.error_log = os.path.join(prefix, "logs/error.log")

    def start(self):
        command = ["nginx", "-p", self.prefix, "-c", self.conf, "-e", "stderr"]
        test = subprocess.run(command + ["-t"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if test.returncode != 0:
            raise RuntimeError("nginx -t refused the configuration:\n" + test.stdout)
        with open(os.path.join(self.prefix, "logs/stderr.log"), "ab") as log:
            self.process = subprocess.Popen(command + ["-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
        deadline = clock() + 20
        while clock() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("nginx exited: %s" % "\n".join(tail(os.path.join(self.prefix, "logs/stderr.log"))))
            if get(self.base, "/healthz", timeout=2) == 200:
                return
            time.sleep(0.1)
        raise RuntimeError("nobody answered /healthz through nginx within 20 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: finishes the requests in flight
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill(); self.process.wait()

    def log_size(self):
        try:
            return os.path.getsize(self.access_log)
        except OSError:
            return 0

    def wait_serving(self, port, timeout):
        """Waits until nginx's log shows an answer from the instance on `port` (it is back in the
        rotation), written after this call."""
        offset, deadline = self.log_size(), clock() + timeout
        served = re.compile(r" upstream=127\.0\.0\.1:%d upstream_status=(200|303) " % port)
        while clock() < deadline:
            time.sleep(0.1)
            if any(served.search(line) for line in self.log_since(offset)):
                return
        raise RuntimeError("nginx did not send anything to the restarted instance :%d within %d s" % (port, timeout))

    def log_since(self, offset):
        with open(self.access_log, encoding="utf-8", errors="replace") as f:
            f.seek(offset)
            return f.read().splitlines()


# PostgreSQL's side: the stores' tables, read with psql.

def owners(cluster, users):
    """Sets each user's `owner`, the user their session leads to (`sessions.record->>'user'`): one query."""
    rows = dict(cluster.psql("SELECT id, record::jsonb->>'user' FROM sessions"))
    missing = [u.id for u in users if not rows.get(u.id)]
    if missing:
        raise RuntimeError("%d sessions are not in the sessions table (or lead to no user), e.g. %s" % (len(missing), missing[0]))
    for u in users:
        u.owner = rows[u.id]


def owner_of(cluster, session):
    rows = cluster.psql("SELECT record::jsonb->>'user' FROM sessions WHERE id = '%s'" % session.replace("'", "''"))
    return rows[0][0] if rows else None


def read_users(cluster):
    """Every user's state (parsed, or the error) and their archive records (ledger segments, old
    answers: `<user>~<name>`) by (user, name), in two queries."""
    states = {}
    for user, data in cluster.psql("SELECT id, encode(convert_to(record, 'UTF8'), 'hex') FROM users"):
        try:
            states[user] = json.loads(bytes.fromhex(data).decode("utf-8"))
        except ValueError as error:
            states[user] = error
    archive = {}
    for name, data in cluster.psql("SELECT id, encode(convert_to(record, 'UTF8'), 'hex') FROM user_archive"):
        user, _, name = name.partition("~")
        archive[(user, name)] = bytes.fromhex(data)
    return states, archive


def ledger(user, state, segments):
    """A user's whole ledger, oldest first: the archived segments, then the movements in the state."""
    movements = []
    for start in range(0, state["progress"]["ledger"]["archivedCount"], 20):
        data = segments.get((user, "ledger-%d" % start))
        if data is None:
            raise ValueError("archive segment ledger-%d.json is missing" % start)
        movements += json.loads(data.decode("utf-8"))["transactions"]
    return movements + state["progress"]["ledger"]["recent"]


def check(cluster, acknowledged):
    """crash-test's check on PostgreSQL: every state parses; every acknowledged award is in its
    ledger once; no survey pays twice; ids are unique; the totals are the ledger's sums (balance =
    earned - spent). Returns (users checked, problems, ledgers by user)."""
    states, segments = read_users(cluster)
    problems, ledgers = [], {}
    for user, state in states.items():
        if isinstance(state, Exception):
            problems.append("%s: state does not parse (%s)" % (user, state)); continue
        try:
            movements = ledger(user, state, segments)
        except (KeyError, TypeError, ValueError) as error:
            problems.append("%s: unreadable ledger (%s)" % (user, error)); continue
        ledgers[user] = movements
        rewards = [t["reason"]["surveyReward"]["_0"] for t in movements if "surveyReward" in t["reason"]]
        problems += ["%s: %s paid %d times" % (user, s, rewards.count(s)) for s in set(rewards) if rewards.count(s) > 1]
        ids = [t["id"] for t in movements]
        if len(set(ids)) != len(ids):
            problems.append("%s: duplicate transaction ids" % user)
        totals = state["progress"]["ledger"]
        earned = sum(t["amount"] for t in movements if is_credit(t))
        spent = sum(t["amount"] for t in movements if not is_credit(t))
        if (earned, spent) != (totals["totalEarned"], totals["totalSpent"]):
            problems.append("%s: totals earned %d, spent %d; the ledger's sums %d, %d" % (user, totals["totalEarned"], totals["totalSpent"], earned, spent))
    lost = 0
    for user, surveys in acknowledged.items():
        if user not in ledgers:
            if user not in states:
                problems.append("%s: %d acknowledged awards but no state" % (user, len(surveys)))
            lost += len(surveys); continue
        rewards = {t["reason"]["surveyReward"]["_0"] for t in ledgers[user] if "surveyReward" in t["reason"]}
        for s in sorted(surveys - rewards):
            problems.append("%s: acknowledged %s is missing" % (user, s)); lost += 1
    return len(ledgers), problems, ledgers, lost


# 1. Crashes under load.

class Timeline:
    """Every request of the load: (start, end, method, outcome), outcome "paid", a status, or None
    (no answer: connection failed or timed out)."""

    def __init__(self):
        self.events, self.lock = [], threading.Lock()
        self.kills = []          # (SIGKILL sent, the process gone): its sockets are closed by then
        self.database = None     # (stop asked, stopped, start asked, started, recovered)

    def add(self, *event):
        with self.lock:
            self.events.append(event)


class Operator(crash.Console):
    """crash-test's operator on the console, another one than `catalog_change`'s, with an
    authenticator of its own."""
    EMAIL = "exchanges@example.jp"
    authenticator = crash.Authenticator()

    @classmethod
    def create(cls, binary, url):
        made = subprocess.run([binary, "create-operator", "--email", cls.EMAIL, "--role", "administrator", "--database-url", url],
                              input=cls.PASSWORD + "\n", text=True, capture_output=True)
        if made.returncode != 0:
            raise RuntimeError("create-operator exited with %d: %s" % (made.returncode, (made.stderr or made.stdout).strip()[-500:]))


def exchange_survey(args, url, instances, port, users):
    """crash-test's exchange survey (paying crash.EXCHANGE_REWARD), published through one instance
    and answered through nginx by `users` (each until acknowledged: the other instance reads the
    catalog again within a second)."""
    Operator.create(os.path.abspath(args.binary), url)
    bonus = crash.exchange_survey(Operator(instances[0].port))
    deadline = clock() + 10
    for u in users:
        while u.answer(port, bonus) != "paid":
            if clock() > deadline:
                raise RuntimeError("the exchange survey %s was not acknowledged for %s through nginx within 10 s" % (bonus["id"], u.owner))
            time.sleep(0.2)
    return bonus


def crash_under_load(args, cluster, instances, proxy, folder, url, exchanges, sandbox):
    """`exchanges`: filled with the exchanges acknowledged ("acknowledged": (owner, N)), their
    outcomes ("tally") and the unexpected ones ("problems")."""
    surveys = crash.open_surveys()
    port = proxy.base
    rng = random.Random(args.seed)

    # Visitors through nginx, a few of whom register (before the load: the per-client limit
    # allows 20 a minute from one address, and everyone here is 127.0.0.1).
    users, lock = [], threading.Lock()
    def make(n):
        for _ in range(n):
            u = crash.User(port)
            with lock:
                users.append(u)
    makers = [threading.Thread(target=make, args=(args.users // 8 + (i < args.users % 8),)) for i in range(8)]
    for m in makers: m.start()
    for m in makers: m.join()
    if len(users) != args.users:
        raise RuntimeError("only %d of %d visitors got a session through nginx" % (len(users), args.users))
    owners(cluster, users)
    registered, exchangers = {}, []
    for u in rng.sample(users, args.accounts):
        email = "scale-%s@example.jp" % u.owner[:12]
        password = "sukeeru auto " + email
        if not u.sign_in(port, "/register", email, password):
            raise RuntimeError("registering %s through nginx was not acknowledged" % email)
        registered[email] = (password, u.owner)
        exchangers.append((u, password))
    # Those accounts and --exchanges more each make one exchange during the load, timed to meet a
    # kill (their passwords were typed at registering: none is asked again). A generator of its
    # own: the load's moments and victims stay those of --seed.
    rng_exchange = random.Random(args.seed + 1)
    for u in rng_exchange.sample([u for u in users if all(u is not e for e, _ in exchangers)], args.exchanges):
        email = "koukan-%s@example.jp" % u.owner[:12]
        password = "koukan tesuto " + email
        if not u.sign_in(port, "/register", email, password):
            raise RuntimeError("registering %s through nginx was not acknowledged" % email)
        exchangers.append((u, password))
    # Exchanges wait for the address: each opens the link the registration mailed (either
    # instance's sender delivers it into their folder's outbox).
    outboxes = [os.path.join(folder, "data", "mail-outbox")]
    for u, _ in exchangers:
        address = [e for e, (_, o) in registered.items() if o == u.owner]
        address = address[0] if address else "koukan-%s@example.jp" % u.owner[:12]
        if not u.verify(port, outboxes, address):
            raise RuntimeError("verifying %s through nginx was not acknowledged" % address)
    for u in users:
        u.retired = False  # sign_in retires on failure only; all succeeded
    bonus = exchange_survey(args, url, instances, port, [u for u, _ in exchangers])

    acknowledged = {u.owner: set() for u in users}
    for u, _ in exchangers:
        acknowledged[u.owner].add(bonus["id"])  # its reward acknowledged: checked with the others
    full = set()  # surveys whose quota answered 受付終了 (on PostgreSQL a place is never given back)
    timeline, stop = Timeline(), threading.Event()

    def load(seed):
        r = random.Random(seed)
        while not stop.is_set():
            user = r.choice(users)
            with lock:
                todo = [s for s in surveys if s["id"] not in acknowledged[user.owner] and s["id"] not in full]
            if not todo or r.random() < 0.15:
                t0 = clock(); status = get(port, "/points", user.cookie); t1 = clock()
                timeline.add(t0, t1, "GET", status)
                continue
            survey = r.choice(todo)
            t0 = clock(); outcome = user.answer(port, survey); t1 = clock()
            timeline.add(t0, t1, "POST", outcome)
            if outcome in ("paid", "closed"):
                with lock:
                    (acknowledged[user.owner] if outcome == "paid" else full).add(survey["id"])

    def exchange(user, password, option, delay):
        """One exchange through nginx, sent `delay` s from now: around the kill to come, which
        cuts it (502) when it went to the victim. Acknowledged: recorded."""
        time.sleep(delay)
        outcome, number = user.exchange(port, option, password)
        key = {"requested": "acknowledged", "refused": "refused", "failed": "no answer"}.get(outcome, str(outcome))
        if outcome == "unsent":
            key = "confirmation %s" % ("no answer" if number is None else number)
        with lock:
            exchanges["tally"][key] = exchanges["tally"].get(key, 0) + 1
            if outcome == "requested":
                exchanges["acknowledged"].add((user.owner, number))
            elif outcome not in ("refused", 502, 503):  # a 502 from the kill, a 503 with the database down
                exchanges["problems"].append("an exchange by %s through nginx answered %s" % (user.owner, key))

    def restart_database():
        # Both instances serving before the database goes: nginx's choice is not the question here.
        time.sleep(proxy.fail_timeout + 0.5)
        asked = clock(); cluster.stop("immediate"); stopped = clock()
        time.sleep(args.database_down)
        start_asked = clock(); cluster.start(); started = clock()
        # Recovered: each instance serves a page that reads the database again, by itself.
        cookie, deadline = users[0].cookie, started + 60
        for instance in instances:
            while get(instance.port, "/points", cookie, timeout=HANG) != 200:
                if clock() > deadline:
                    raise RuntimeError("instance :%d still does not serve /points 60 s after PostgreSQL came back" % instance.port)
                time.sleep(0.05)
        timeline.database = (asked, stopped, start_asked, started, clock())
        # No SIGKILL until a request stuck since the outage has had the time to show as a hang:
        # killing its instance would end it as a 502 and hide it.
        time.sleep(HANG + 1)

    workers = [threading.Thread(target=load, args=(args.seed * 100 + n,)) for n in range(args.threads)]
    waiting = list(exchangers)
    began = clock()
    for w in workers: w.start()
    try:
        time.sleep(1.0)
        for kill in range(args.kills):
            if kill == args.kills // 2:
                restart_database()
            # A random moment, a random instance; the other one is in nginx's rotation.
            pause = rng.uniform(0.2, 1.2)
            # The next exchange is sent up to 0.35 s before the kill: under way when it lands (its
            # issuer takes 200 ms) if it went to the victim, or answered just before it.
            if waiting:
                worker = threading.Thread(target=exchange, args=(*waiting.pop(0), rng_exchange.choice(crash.EXCHANGE_OPTIONS),
                                                                 max(0.0, pause - rng_exchange.uniform(0, 0.35))))
                worker.start()
                workers.append(worker)
            time.sleep(pause)
            victim = rng.choice(instances)
            sent = clock()
            victim.kill()
            timeline.kills.append((sent, clock()))
            # The gift provider (crash-test's misbehaving sandbox) dies with every third victim
            # and comes back after it; from the third kill to the fifth it delivers no e-money.
            if kill % 3 == 1:
                sandbox.kill()
            victim.start()
            victim.wait_ready()
            if kill % 3 == 1:
                sandbox.start()
            if kill in (2, 5):
                sandbox.deliver_all("emoney-500" if kill == 2 else "")
            # nginx takes the restarted one back once its fail_timeout is over (counted in whole
            # seconds): only when it has served the load again may the other one die.
            proxy.wait_serving(victim.port, timeout=proxy.fail_timeout + 15)
        for user, password in waiting:  # more exchangers than kills: the rest now
            worker = threading.Thread(target=exchange, args=(user, password, rng_exchange.choice(crash.EXCHANGE_OPTIONS), 0.0))
            worker.start()
            workers.append(worker)
        time.sleep(1.0)
    finally:
        stop.set()
        for w in workers: w.join()
    duration = clock() - began

    # Judge every request by when it ran.
    asked, stopped, start_asked, started, recovered = timeline.database
    def overlaps(t0, t1, a, b):
        return t0 <= b and t1 >= a
    problems, statuses = [], {}
    started_down = down_503 = waited = hung_down = 0
    slowest_down = slowest_503 = 0.0
    in_flight_at_kills = 0
    for t0, t1, method, outcome in timeline.events:
        key = "%s %s" % (method, "303" if outcome == "paid" else outcome if outcome is not None else ("hang" if t1 - t0 >= HANG - 0.1 else "no answer"))
        statuses[key] = statuses.get(key, 0) + 1
        at_kill = any(overlaps(t0, t1, sent - 0.05, gone + 0.05) for sent, gone in timeline.kills)
        in_flight_at_kills += at_kill and method == "POST"
        database_window = overlaps(t0, t1, asked, recovered + 1.0)
        if database_window:
            slowest_down = max(slowest_down, t1 - t0)
            hung_down += outcome is None
            if outcome == 503:
                slowest_503 = max(slowest_503, t1 - t0)
        if stopped <= t0 <= started:  # sent while PostgreSQL was down (or starting again)
            started_down += 1
            down_503 += outcome == 503
            waited += outcome in ("paid", 200)
        if stopped <= t0 and t1 <= start_asked:  # and answered before it was started again
            if outcome != 503:
                problems.append("%s at +%.2f s while PostgreSQL was down answered %s in %.2f s, not 503" % (method, t0 - began, outcome, t1 - t0))
                continue
        if outcome is None:
            problems.append("%s at +%.2f s: %s after %.2f s" % (method, t0 - began, "no answer (hang)" if t1 - t0 >= HANG - 0.1 else "connection failed through nginx", t1 - t0))
        elif outcome == 502:
            if not at_kill:
                problems.append("%s at +%.2f s answered 502 with no instance killed meanwhile" % (method, t0 - began))
        elif outcome == 503:
            if not database_window:
                problems.append("%s at +%.2f s answered 503 while PostgreSQL was up" % (method, t0 - began))
        elif outcome not in ("paid", "closed", 200):
            problems.append("%s at +%.2f s answered %s in %.2f s" % (method, t0 - began, outcome, t1 - t0))
    answered_503 = sum(n for k, n in statuses.items() if k.endswith(" 503"))
    count_500 = sum(n for k, n in statuses.items() if k.endswith(" 500"))
    posts = sum(n for k, n in statuses.items() if k.startswith("POST"))

    # Everything acknowledged, once; every balance its ledger's sum.
    for instance in instances:
        instance.wait_ready()
    checked, found, _, lost = check(cluster, {u: s for u, s in acknowledged.items() if s})
    problems += found
    paid_twice = sum(1 for p in found if "paid" in p and "times" in p)
    awards = sum(len(s) for s in acknowledged.values())
    if all({s["id"] for s in surveys} <= acknowledged[u.owner] | full for u in users):
        problems.append("every user answered every survey before the end: use more --users")
    if in_flight_at_kills == 0:
        problems.append("no POST was in flight at any SIGKILL")

    # Accounts kept in PostgreSQL through it all: each logs in to its own data.
    logins = 0
    for email, (password, owner) in sorted(registered.items()):
        visitor = crash.User(port)
        if not visitor.sign_in(port, "/login", email, password):
            problems.append("%s: an acknowledged registration cannot log in" % email)
        elif owner_of(cluster, visitor.id) != owner:
            problems.append("%s: logging in leads to another user's data" % email)
        else:
            logins += 1

    kills = len(timeline.kills)
    print("scale-out: 2 instances behind nginx, %d SIGKILLs, 1 PostgreSQL restart (%.1f s down: %d requests answered 503, "
          "%d 500s, %d hung, slowest %.1f s; both instances served again %.1f s after it was back); %d POSTs, %d awards acknowledged, "
          "%d lost, %d paid twice, balances = ledger sums for %d users"
          % (kills, started - asked, answered_503, count_500, hung_down, slowest_down, recovered - started, posts, awards, lost,
             paid_twice, checked - sum(1 for p in found if "totals earned" in p)))
    print("scale-out:   %.0f s of load from %d users × %d threads: %s; %d POSTs in flight at the kills (their 502s: nginx "
          "never sends a POST again); %d requests sent while PostgreSQL was down: %d answered 503, %d waited for it and succeeded; "
          "the slowest 503 took %.1f s; %d accounts registered before the load logged in to their own data after"
          % (duration, len(users), args.threads, ", ".join("%s: %d" % kv for kv in sorted(statuses.items())),
             in_flight_at_kills, started_down, down_503, waited, slowest_503, logins))
    return problems


# 2. One user, 50 concurrent submissions through nginx.

def concurrent_submissions(args, cluster, proxy):
    surveys = crash.open_surveys()
    port = proxy.base
    user = crash.User(port)
    owner = owner_of(cluster, user.id)
    target = surveys[0]
    jobs = [target] * args.concurrent + surveys[1:]
    barrier = threading.Barrier(len(jobs))
    results, lock = [], threading.Lock()

    def post(survey):
        barrier.wait()
        outcome = user.answer(port, survey)
        with lock:
            results.append((survey["id"], outcome))

    offset = proxy.log_size()
    threads = [threading.Thread(target=post, args=(s,)) for s in jobs]
    for t in threads: t.start()
    for t in threads: t.join()
    time.sleep(0.3)
    upstreams = {}
    for line in proxy.log_since(offset):
        if '"POST /surveys/%s/answers"' % target["id"] in line:
            for addr in re.search(r"upstream=(\S+)", line).group(1).split(","):
                addr = addr.strip().rsplit(":", 1)[-1]
                upstreams[addr] = upstreams.get(addr, 0) + 1

    problems = []
    same = [o for s, o in results if s == target["id"]]
    others = {s: o for s, o in results if s != target["id"]}
    tally = {}
    for o in same:
        tally["303 complete" if o == "paid" else str(o)] = tally.get("303 complete" if o == "paid" else str(o), 0) + 1
    if "paid" not in same:
        problems.append("none of the %d submissions of %s was acknowledged" % (len(same), target["id"]))
    bad = [o for o in same if o != "paid"]
    if bad:
        problems.append("submissions of %s answered %s" % (target["id"], tally))
    # Surveys whose quota the load filled answer 受付終了: not paid, not expected.
    closed = {s for s, o in others.items() if o == "closed"}
    paying = [s for s in surveys if s["id"] not in closed]
    taken = quota_counts(cluster)
    problems += ["%s answered 受付終了 with %d of its %d places taken" % (s["id"], taken.get(s["id"], 0), crash.places(s))
                 for s in surveys if s["id"] in closed and taken.get(s["id"], 0) < crash.places(s)]
    unpaid = sorted(s for s, o in others.items() if o not in ("paid", "closed"))
    if unpaid:
        problems.append("other surveys not acknowledged: %s" % ", ".join("%s (%s)" % (s, others[s]) for s in unpaid))
    _, found, ledgers, _ = check(cluster, {owner: {s for s, o in results if o == "paid"}})
    problems += [p for p in found if p.startswith(owner)]
    movements = ledgers.get(owner, [])
    rewards = [t["reason"]["surveyReward"]["_0"] for t in movements if "surveyReward" in t["reason"]]
    expected = sum(s["reward"] for s in paying)
    balance = sum(t["amount"] for t in movements if is_credit(t)) - sum(t["amount"] for t in movements if not is_credit(t))
    if rewards.count(target["id"]) != 1:
        problems.append("%s paid %d times" % (target["id"], rewards.count(target["id"])))
    if sorted(rewards) != sorted(s["id"] for s in paying) or balance != expected:
        problems.append("balance %d pt, expected %d pt; %d survey rewards in the ledger for %d surveys" % (balance, expected, len(rewards), len(paying)))
    if len(upstreams) < 2:
        problems.append("the %d submissions did not reach both instances (nginx's log: %s)" % (len(same), upstreams or "nothing"))
    print("scale-out: %d concurrent submissions of one survey by one user through nginx to 2 instances (%s), with the %d "
          "other surveys at once: %s; %s paid %d time%s, %d of %d surveys paid once each, balance %d pt = ledger sum, expected %d pt"
          % (len(same), ", ".join(":%s %d" % kv for kv in sorted(upstreams.items())), len(surveys) - 1,
             ", ".join("%s ×%d" % kv for kv in sorted(tally.items())), target["id"], rewards.count(target["id"]),
             "" if rewards.count(target["id"]) == 1 else "s", len(set(rewards)), len(paying), balance, expected)
          + ("; %d closed by the load's answers (受付終了): %s" % (len(closed), ", ".join(sorted(closed))) if closed else ""))
    return problems


# 2b. A browser's next page shows what its form did, whichever instance serves it.
def read_your_writes(proxy):
    """A browser (keeping its session and state cookies) reads its points page through nginx, then
    answers a survey, then reads the points page again: nginx sends consecutive requests to
    alternate instances, and each has the page's session and state in its cache (`ChangeFeed`)."""
    port = proxy.base
    user = crash.User(port)
    state = None

    def request(method, path, body=None):
        nonlocal state
        headers = {"Cookie": user.cookie + ("; " + state if state else "")}
        if body is not None:
            headers.update({"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://127.0.0.1:%d" % port})
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse(); page = r.read().decode(); c.close()
        state = crash.state_cookie(r) or state
        return r.status, r.getheader("Location"), page

    def balance():
        found = re.search(r'<p class="big">([0-9,]+)pt<', request("GET", "/points")[2])
        return int(found.group(1).replace(",", "")) if found else None

    problems, shown, expected, answered = [], [], balance(), 0
    for survey in crash.open_surveys()[:10]:
        balance(); balance()
        status, location, _ = request("POST", "/surveys/%s/answers" % survey["id"], urllib.parse.urlencode([("csrf", user.csrf)] + crash.answers(survey)))
        if (status, location) == (303, "/surveys/%s/complete" % survey["id"]):
            expected += survey["reward"]; answered += 1
        elif status != 303:
            problems.append("answering %s answered %s" % (survey["id"], status))
        after = balance()
        shown.append(after)
        if after != expected:
            problems.append("after answering %s the points page showed %s pt, not %d pt" % (survey["id"], after, expected))
    print("read your writes: %d surveys answered through nginx, each followed by the points page from the instance that did not "
          "take the answer: %s" % (answered, "every page showed its balance (%s pt)" % ", ".join(map(str, shown)) if not problems else "%d wrong" % len(problems)))
    return problems


# 3. X-Forwarded-For from the trusted proxy only.

def visit(port, source):
    """A new visitor from `source` (any 127/8 address is loopback): their cookie and CSRF token."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG, source_address=(source, 0))
    c.request("GET", "/surveys")
    r = c.getresponse(); r.read()
    cookie = r.getheader("Set-Cookie").split(";")[0]
    c.request("GET", "/missions", headers={"Cookie": cookie})
    r = c.getresponse()
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', r.read().decode()).group(1)
    c.close()
    return cookie, csrf


def log_in(port, source, visitor, email, forwarded=None):
    """A login with a wrong password for an address without an account: 303 back to /login, or
    429 once the client's limit is reached."""
    cookie, csrf = visitor
    body = urllib.parse.urlencode([("csrf", csrf), ("email", email), ("password", "machigai pasuwaado")])
    headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded", "Origin": "http://127.0.0.1:%d" % port}
    if forwarded:
        headers["X-Forwarded-For"] = forwarded
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG, source_address=(source, 0))
        c.request("POST", "/login", body=body, headers=headers)
        r = c.getresponse(); r.read(); c.close()
        return r.status
    except OSError as error:
        return "no answer (%s)" % error


def forwarded_for(cluster, proxy, instances):
    port, direct = proxy.base, instances[0].port
    tag = "%x" % random.getrandbits(32)
    email = lambda n: "xff-%s-%s@example.jp" % (tag, n)
    problems = []
    limit = 20
    # Through nginx from 127.0.0.2, every attempt forging another client: all count as 127.0.0.2.
    guesser = visit(port, "127.0.0.2")
    first = [log_in(port, "127.0.0.2", guesser, email(n), forwarded="198.51.100.%d" % n) for n in range(limit)]
    refused = log_in(port, "127.0.0.2", guesser, email("last"), forwarded="198.51.100.250")
    if any(s != 303 for s in first):
        problems.append("the first %d logins from 127.0.0.2 through nginx answered %s, expected 303s" % (limit, first))
    if refused != 429:
        problems.append("login %d from 127.0.0.2 through nginx (forging X-Forwarded-For) answered %s, expected 429" % (limit + 1, refused))
    # Another client through the same nginx has its own count.
    other = log_in(port, "127.0.0.3", visit(port, "127.0.0.3"), email("other"))
    if other != 303:
        problems.append("a login from 127.0.0.3 through nginx answered %s, expected 303: the limit is not per forwarded client" % other)
    # Straight to an instance from untrusted peers: their header is ignored.
    spoof_fresh = log_in(direct, "127.0.0.2", guesser, email("direct"), forwarded="127.0.0.5")
    if spoof_fresh != 429:
        problems.append("127.0.0.2 (untrusted) naming 127.0.0.5 in X-Forwarded-For answered %s, expected 429: the header was believed" % spoof_fresh)
    spoof_blocked = log_in(direct, "127.0.0.4", visit(direct, "127.0.0.4"), email("framed"), forwarded="127.0.0.2")
    if spoof_blocked != 303:
        problems.append("127.0.0.4 (untrusted) naming 127.0.0.2 in X-Forwarded-For answered %s, expected 303: the header was believed" % spoof_blocked)
    # From the trusted proxy's address the header names the client.
    trusted = log_in(direct, "127.0.0.1", visit(direct, "127.0.0.1"), email("trusted"), forwarded="127.0.0.2")
    if trusted != 429:
        problems.append("127.0.0.1 (trusted) naming 127.0.0.2 in X-Forwarded-For answered %s, expected 429: the header was not believed" % trusted)
    # The counts in the database name only real peers, never a forged address (each record is
    # named by a hash of the client it counts: `LoginThrottle`).
    clients = ""
    try:
        names = {row[0] for row in cluster.psql("SELECT id FROM login_limits WHERE id LIKE 'c-%'")}
        def counted(client):
            return "c-" + hashlib.sha256(client.encode()).hexdigest()[:32] in names
        forged = [c for c in ["198.51.100.%d" % n for n in range(limit)] + ["198.51.100.250", "127.0.0.5"] if counted(c)]
        if forged:
            problems.append("login_limits counts forged clients: %s" % forged)
        real = [c for c in ("127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4") if counted(c)]
        if "127.0.0.2" not in real:
            problems.append("login_limits has no count of 127.0.0.2, the client that sent the guesses (%s)" % real)
        clients = "; no forged address among the clients counted in login_limits (%s)" % ", ".join(real)
    except subprocess.CalledProcessError:
        pass
    print("scale-out: X-Forwarded-For believed from the trusted proxy only: through nginx %d logins from 127.0.0.2 each forging "
          "another client were counted as 127.0.0.2 and the next answered %s, while 127.0.0.3 answered %s; straight to an "
          "instance, untrusted 127.0.0.2 naming a fresh client answered %s, untrusted 127.0.0.4 naming 127.0.0.2 answered %s, "
          "trusted 127.0.0.1 naming 127.0.0.2 answered %s%s"
          % (limit, refused, other, spoof_fresh, spoof_blocked, trusted, clients))
    return problems


# 4. Exchanges, quotas and responses after the run.

def check_exchanges(cluster, exchanges, sandbox, keys_file, wait=90.0):
    """crash-test's `exchange_problems` on PostgreSQL, at the end (the instances idle but for their
    sweeps every 2 s): read again, up to `wait` seconds, while a request is pending or queued in
    `exchange_pending` (the sandbox leaves some 0.4 of the calls unanswered: crash-test's wait says
    why 90 s); the sandbox provider's orders for the source's records (none ordered twice).
    And, since a request is ordered only once its state is committed, no order is for a request no
    state holds. `keys_file`: the instances' --code-keys."""
    deadline = clock() + wait
    while True:
        states, segments = read_users(cluster)
        states = {u: s for u, s in states.items() if not isinstance(s, Exception)}  # reported by `check`
        queued = [row[0] for row in cluster.psql("SELECT id FROM exchange_pending")]
        pending = any("pending" in r["status"] for s in states.values() for r in s["progress"].get("exchanges", []))
        if not (pending or queued) or clock() > deadline:
            break
        time.sleep(0.5)
    keys = crash.CodeKeys(keys_file)
    issued, provider_problems, orders = sandbox.records(keys)
    ledgers = {}
    for user, state in list(states.items()):
        try:
            ledgers[user] = ledger(user, state, segments)
        except (KeyError, TypeError, ValueError):
            del states[user]  # reported by `check`
    problems, figures = crash.exchange_problems(states, ledgers, issued, queued, exchanges["acknowledged"], keys)
    problems += exchanges["problems"] + provider_problems
    if figures["unclaimed"]:
        problems.append("%d provider's orders for requests no state holds: a request is ordered after its commit"
                        % figures["unclaimed"])
    tally = exchanges["tally"]
    print("scale-out: exchanges after the run: %d requested through nginx around the kills (%s); %d requests in the states, "
          "%d fulfilled, %d refunded, %d pending at the end, %d queued; the sandbox provider (%s, killed with every third "
          "victim) made %d orders; %s"
          % (sum(tally.values()), ", ".join("%s %d" % kv for kv in sorted(tally.items())) or "none", figures["requests"],
             figures["fulfilled"], figures["refunded"], figures["pending"], len(queued),
             ", ".join("%s %s" % item for item in crash.Sandbox.FAULTS.items()), orders,
             "every acknowledged request kept, each code the provider's for its key and in one request, none ordered twice, every order "
             "a request's, one hold each, one refund for each failed request and none for another, every balance its "
             "ledger's and its lots'" if not problems else "%d violations" % len(problems)))
    if not exchanges["acknowledged"]:
        problems.append("no exchange was acknowledged")
    return problems


def catalog_change(binary, url, instances):
    """An operator closes a survey through one instance; the other serves it 受付終了 within 5
    seconds, with no restart (each instance reads the catalog again once a second when its
    version moved)."""
    password = "correct horse battery"
    subprocess.run([binary, "create-operator", "--email", "ops@example.jp", "--role", "administrator", "--database-url", url],
                   input=password + "\n", text=True, check=True, capture_output=True)
    one, other = instances[0].port, instances[1].port
    c = http.client.HTTPConnection("127.0.0.1", one, timeout=HANG)

    def request(method, path, cookie, form=None):
        headers = {"Cookie": cookie} if cookie else {}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers.update({"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://127.0.0.1:%d" % one})
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        page = r.read().decode()
        issued = r.getheader("Set-Cookie") or ""
        if issued.startswith("pointapp_admin="):
            cookie = issued.split(";")[0]
        return r.status, r.getheader("Location"), page, cookie

    _, _, page, cookie = request("GET", "/admin/login", None)
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    status, location, _, cookie = request("POST", "/admin/login", cookie, [("csrf", csrf), ("email", "ops@example.jp"), ("password", password)])
    if (status, location) != (303, "/admin/login/code"):
        return ["the operator's sign-in through :%d answered %s %s" % (one, status, location)]

    def keeping_cookie(method, path, form):
        nonlocal cookie
        status, location, page, cookie = request(method, path, cookie, form)
        return status, location, page

    problem = crash.Authenticator().give(keeping_cookie)
    if problem:
        return ["the operator's second factor through :%d: %s" % (one, problem)]
    _, _, page, cookie = request("GET", "/admin/surveys", cookie)
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    survey = "travel-004"  # open, no quota: the quota check that follows is not touched
    visitor, _ = visit(other, "127.0.0.1")
    closed_text = "このアンケートの受付は終了しました"

    def shown_closed():
        d = http.client.HTTPConnection("127.0.0.1", other, timeout=HANG)
        d.request("GET", "/surveys/" + survey, headers={"Cookie": visitor})
        r = d.getresponse()
        return closed_text in r.read().decode()

    if shown_closed():
        return ["%s was closed before the operator closed it" % survey]
    status, location, _, cookie = request("POST", "/admin/surveys/%s/close" % survey, cookie, [("csrf", csrf)])
    if (status, location) != (303, "/admin/surveys"):
        return ["closing %s through :%d answered %s %s" % (survey, one, status, location)]
    started = clock()
    while not shown_closed():
        if clock() - started > 5:
            return ["%s closed through :%d was still open on :%d after 5 s" % (survey, one, other)]
        time.sleep(0.1)
    print("catalog: %s closed through :%d, shown 受付終了 on :%d after %.1f s" % (survey, one, other, clock() - started))
    return []


def completed(user, state, archive, survey):
    """crash-test's `completed` on PostgreSQL: whether a saved state holds a completed answer (no
    `outcome`) to a survey, archived (`answer-<hex of its id>`) or not."""
    progress = state["progress"]
    answer = progress["answered"].get(survey)
    if answer is None and progress.get("answeredCount", 0) > len(progress["answered"]):
        data = archive.get((user, "answer-%s" % survey.encode("utf-8").hex()))
        answer = json.loads(data.decode("utf-8")) if data is not None else None
    return answer is not None and "outcome" not in answer


def quota_counts(cluster):
    """Each survey's places taken (`quotas`' `q~<survey>` records)."""
    return {name[2:]: int(n) for name, n in cluster.psql("SELECT id, record FROM quotas WHERE starts_with(id, 'q~')")}


def check_quotas(cluster):
    """crash-test's `check_quotas` on PostgreSQL, with the instances idle: for each survey with a
    quota, `taken` = its place rows = the users with a completed answer (the same users), never
    more than its places. No settling: a place commits with its answer."""
    states, archive = read_users(cluster)
    taken = quota_counts(cluster)
    held = {}
    for (name,) in cluster.psql("SELECT id FROM quotas WHERE starts_with(id, 'p~')"):
        survey, _, user = name[2:].rpartition("~")
        held.setdefault(survey, set()).add(user)
    quotas = [s for s in crash.catalog() if s.get("quota")]
    problems = ["%s: quota records, but no quota in the catalog" % s
                for s in sorted((set(taken) | set(held)) - {q["id"] for q in quotas})]
    done = {q["id"]: set() for q in quotas}
    for user, state in states.items():
        if isinstance(state, Exception):
            problems.append("%s: state does not parse (%s)" % (user, state)); continue
        try:
            for survey in done:
                if completed(user, state, archive, survey):
                    done[survey].add(user)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            problems.append("%s: answers unreadable (%s)" % (user, error))
    full = []
    for survey in quotas:
        sid, places = survey["id"], crash.places(survey)
        rows, answered = held.get(sid, set()), done[sid]
        if sid not in taken and not rows and not answered:
            continue
        print("quota: %s %d places, taken %d, %d place rows, %d completed answers" % (sid, places, taken.get(sid, 0), len(rows), len(answered)))
        if not taken.get(sid, 0) == len(rows) == len(answered) or rows != answered:
            problems.append("%s: taken %d, %d place rows, %d completed answers (%d places without a completed answer, %d completed answers without a place)"
                            % (sid, taken.get(sid, 0), len(rows), len(answered), len(rows - answered), len(answered - rows)))
        if max(taken.get(sid, 0), len(rows), len(answered)) > places:
            problems.append("%s: taken %d, %d place rows, %d completed answers: more than its %d places"
                            % (sid, taken.get(sid, 0), len(rows), len(answered), places))
        if 0 < places == taken.get(sid, 0):
            full.append(sid)
    print("scale-out: quotas after the run, %d users' states read: %d surveys with places taken (%s full); %s"
          % (len(states), sum(1 for s in quotas if taken.get(s["id"], 0)), ", ".join(full) or "none",
             "each one's taken = its place rows = its completed answers, the same users, within its places" if not problems
             else "%d disagreements" % len(problems)))
    return problems


def check_responses(cluster):
    """crash-test's `check_responses` on PostgreSQL, with the instances idle: each user's saved
    answer, archived ones included, against its row of `responses`, one by one (a response
    commits with its answer, in one transaction)."""
    states, archive = read_users(cluster)
    answered = {}
    for user, state in states.items():
        if isinstance(state, Exception):
            continue  # reported by `check`
        answered[user] = crash.saved_answers(state, {name: data for (owner, name), data in archive.items() if owner == user})
    responses = {}
    for (text,) in cluster.psql("SELECT record FROM responses WHERE id NOT LIKE '#%'"):
        response = json.loads(text)
        responses[(response["surveyID"], response["respondent"])] = response
    [(secret,)] = cluster.psql("SELECT record FROM settings WHERE id = 'session-secret'")
    problems = crash.compare_responses(answered, responses, base64.b64decode(json.loads(secret)))
    recorded = {}
    for survey, _ in responses:
        recorded[survey] = recorded.get(survey, 0) + 1
    print("scale-out: responses after the run: %d, of %d surveys; %s"
          % (len(responses), len(recorded),
             "every saved answer is its response, compared one by one" if not problems else "%d disagreements" % len(problems)))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/pointapp"))
    parser.add_argument("--port-base", type=int, default=8080, help="nginx's port; the instances take the next two")
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--users", type=int, default=1500, help="visitors answering during the load: enough that some survey is left for someone at the end")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--accounts", type=int, default=5, help="visitors who register before the load")
    parser.add_argument("--exchanges", type=int, default=5, help="visitors who register before the load to exchange in it, besides the --accounts (who do too)")
    parser.add_argument("--concurrent", type=int, default=50)
    parser.add_argument("--database-down", type=float, default=3.0, help="seconds PostgreSQL stays down")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder even when passing")
    args = parser.parse_args()
    if args.kills < 2:
        sys.exit("scale-out: --kills must be at least 2 (PostgreSQL restarts between two kills)")
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit("scale-out: no binary at %s: swift build -c release --product pointapp" % binary)
    if not shutil.which("nginx"):
        sys.exit("scale-out: nginx is not installed: apt-get install nginx")
    busy = [p for p in range(args.port_base, args.port_base + 3) if not port_free(p)]
    if busy:
        sys.exit("scale-out: port%s %s busy: choose another --port-base" % ("s" if len(busy) > 1 else "", ", ".join(map(str, busy))))

    folder = tempfile.mkdtemp(prefix="pointapp-scale-out-")
    os.chmod(folder, 0o755)  # PostgreSQL's and nginx's workers run as other users when we are root
    cluster = pgcluster.Cluster(os.path.join(folder, "postgres"))
    instances, proxy = [], None
    problems, started = [], clock()
    sandbox = crash.Sandbox(os.path.join(folder, "provider"))
    try:
        url = cluster.start()
        sandbox.start()
        # Both instances seal gift codes with the keys of one file (the first start makes it).
        keys_file = os.path.join(folder, "code-keys")
        instances = [Instance(binary, url, args.port_base + n, folder, extra=sandbox.options() + ["--code-keys", keys_file]) for n in (1, 2)]
        for instance in instances: instance.start()  # together: they migrate once between them
        for instance in instances: instance.wait_ready()
        proxy = Nginx(os.path.join(folder, "nginx"), args.port_base)
        proxy.start()
        exchanges = {"acknowledged": set(), "tally": {}, "problems": []}
        problems += ["load: " + p for p in crash_under_load(args, cluster, instances, proxy, folder, url, exchanges, sandbox)]
        problems += ["concurrent: " + p for p in concurrent_submissions(args, cluster, proxy)]
        problems += ["read your writes: " + p for p in read_your_writes(proxy)]
        problems += ["X-Forwarded-For: " + p for p in forwarded_for(cluster, proxy, instances)]
        problems += ["catalog: " + p for p in catalog_change(binary, url, instances)]
        problems += ["exchanges: " + p for p in check_exchanges(cluster, exchanges, sandbox, keys_file)]
        problems += ["quotas: " + p for p in check_quotas(cluster)]  # last: the instances are idle
        problems += ["responses: " + p for p in check_responses(cluster)]
    except Exception as error:  # noqa: BLE001 - reported, then everything is stopped
        problems.append("%s: %s" % (type(error).__name__, error))
    finally:
        for instance in instances:
            if not instance.stop():
                problems.append("instance :%d did not exit within 10 s of SIGTERM (killed)" % instance.port)
        if proxy: proxy.stop()
        sandbox.stop()
        cluster.stop()
    for instance in instances:
        # Its 503s while the database was down are expected: the other warnings and errors.
        errors = tail(instance.log, 20, r"^\S+ (error|critical) (?!.*status=503)|^\S+ warning (?!.*database unavailable)|Fatal error")
        if errors and problems:
            print("scale-out: instance :%d's log (%s), its last warnings and errors other than the database's 503s:\n  %s"
                  % (instance.port, instance.log, "\n  ".join(errors)))
    if proxy and problems:
        gave_up = tail(proxy.access_log, 10, r'" (499|500|504) ')
        if gave_up:
            print("scale-out: nginx's log (%s), requests given up by the client (499) or failed:\n  %s" % (proxy.access_log, "\n  ".join(gave_up)))
    for p in problems[:30]:
        print("scale-out: violation: " + p)
    if len(problems) > 30:
        print("scale-out: ... and %d more" % (len(problems) - 30))
    if problems or args.keep:
        print("scale-out: logs and data kept in %s" % folder)
    else:
        shutil.rmtree(folder, ignore_errors=True)
    print("scale-out: %s in %.0f s" % ("FAILED" if problems else "passed", clock() - started))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
