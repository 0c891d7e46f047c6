#!/usr/bin/env python3
"""PointApp's benchmark: the request loop against its limits, each figure a ratio taken in the same
run on the same machine (the machine is shared and noisy: absolute numbers drift, ratios hold).

  P1  GET /surveys for an existing user ÷ GET /healthz, both with wrk          target ≥ 0.30
  P2  POST /surveys/{id}/answers (durable writes) ÷ the raw write+fsync+rename
      +folder-fsync loop of the same byte count in the same folder            target ≥ 0.70
  P3  p50 latency of GET /points and of a POST for a user with 10,000 ledger
      entries ÷ the same for a new user                                        target ≤ 1.5
  P4  server RSS after 10,000 distinct users have each made a request          target ≤ 80 MB
  and the in-process micro-benchmarks (reducer actions/s, pages/s).

Needs wrk (apt-get install wrk) and the release build: swift build -c release
Loopback only; every load is bounded in time and count.
"""
import argparse, http.client, json, os, random, re, shutil, statistics, subprocess, sys, tempfile, time, urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module
crash = import_module("crash-test")

results = []


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


def p1(server, seconds):
    user = crash.User(server.port)
    base = "http://127.0.0.1:%d" % server.port
    health, _, _ = wrk(base + "/healthz", seconds, 32)
    surveys, bad, errors = wrk(base + "/surveys", seconds, 32, ["-H", "Cookie: " + user.cookie])
    ratio = surveys / health
    record("P1", "%.2f" % ratio, "≥ 0.30", ratio >= 0.30 and bad == 0,
           "GET /surveys %.0f req/s (26 rows, existing user) vs GET /healthz %.0f req/s; %d non-2xx%s"
           % (surveys, health, bad, "" if not errors else "; socket errors " + errors))


def p2(server, bench, seconds, users_count):
    surveys = crash.open_surveys()
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
    folder = os.path.join(server.data, "users")

    def raw_rate():
        sizes = [os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder) if n.endswith(".json")]
        size = int(statistics.mean(sizes))
        out = subprocess.run([bench, "raw-writes", "--folder", folder, "--bytes", str(size), "--seconds", "4"],
                             capture_output=True, text=True, check=True).stdout
        return float(out), size

    # The disk is shared and its fsync latency drifts: the raw loop runs right before and right
    # after the measured load (users' files already at their working size), and the ratio uses
    # the mean of the two.
    wrk(url, 2, 16, ["-s", script], [os.path.join(work, "warm-up.tsv")])
    posted = wrk.completed
    raw_before, _ = raw_rate()
    rate, bad, errors = wrk(url, seconds, 16, ["-s", script], [os.path.join(work, "requests.tsv")])
    posted += wrk.completed
    raw_after, size = raw_rate()
    raw = (raw_before + raw_after) / 2
    shutil.rmtree(work)
    # Each POST must have been an award, hence a write: a pair sent twice (too few users for the
    # rate) would answer without writing and flatter the figure.
    awards = 0
    for name in os.listdir(folder):
        if name.endswith(".json") and not name.startswith("raw-"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                awards += json.load(f)["progress"]["answeredCount"]
    if awards < posted:
        raise SystemExit("P2: %d POSTs but %d awards: some pairs were sent twice; use more --post-users" % (posted, awards))
    ratio = rate / raw
    record("P2", "%.2f" % ratio, "≥ 0.70", ratio >= 0.70 and bad == 0,
           "POST answers %.0f req/s (each a durable write, 16 connections, %d distinct user×survey pairs) vs raw loop "
           "%.0f writes/s of %d bytes in the same folder (%.0f before the load, %.0f after); %d non-3xx%s"
           % (rate, len(measured), raw, size, raw_before, raw_after, bad, "" if not errors else "; socket errors " + errors))


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


def p3(server, bench, samples):
    big_id = subprocess.run([bench, "seed-user", "--data", server.data, "--entries", "10000"],
                            capture_output=True, text=True, check=True).stdout.strip()
    big_cookie = "pointapp_session=" + big_id
    size = os.path.getsize(os.path.join(server.data, "users", big_id + ".json"))
    archive = os.path.join(server.data, "users", big_id + ".archive")
    archived = [os.path.getsize(os.path.join(archive, n)) for n in os.listdir(archive)]
    new = crash.User(server.port)
    conn = connection(server.port)
    # The seeded user's file is named as a guest's was before session records: their cookie
    # names it, and becomes their session's id.
    timed(conn, "GET", "/points", big_cookie)
    timed(conn, "GET", "/points", new.cookie)
    big_get, new_get = [], []
    for _ in range(samples):
        big_get.append(timed(conn, "GET", "/points", big_cookie)[0])
        new_get.append(timed(conn, "GET", "/points", new.cookie)[0])
    conn.request("GET", "/missions", headers={"Cookie": big_cookie})
    big_csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', conn.getresponse().read().decode()).group(1)
    big_post, new_post = [], []
    for survey in crash.open_surveys():
        for cookie, csrf, into in ((big_cookie, big_csrf, big_post), (new.cookie, new.csrf, new_post)):
            body = urllib.parse.urlencode([("csrf", csrf)] + crash.answers(survey))
            elapsed, status = timed(conn, "POST", "/surveys/%s/answers" % survey["id"], cookie, body)
            if status != 303:
                raise SystemExit("P3 POST answered %d" % status)
            into.append(elapsed)
    get_ratio = statistics.median(big_get) / statistics.median(new_get)
    post_ratio = statistics.median(big_post) / statistics.median(new_post)
    files = "10,000 movements: state file %d KB, archive %d files, %d KB" % (size // 1024, len(archived), sum(archived) // 1024)
    detail = "p50 %.2f ms vs %.2f ms (" + files + ")"
    record("P3 GET /points", "%.2f" % get_ratio, "≤ 1.5", get_ratio <= 1.5,
           detail % (statistics.median(big_get) * 1e3, statistics.median(new_get) * 1e3))
    record("P3 POST answers", "%.2f" % post_ratio, "≤ 1.5", post_ratio <= 1.5,
           detail % (statistics.median(big_post) * 1e3, statistics.median(new_post) * 1e3))


def p4(binary, users):
    data = tempfile.mkdtemp(prefix="pointapp-rss-")
    server = crash.Server(binary, data, crash.free_port())
    server.start()
    before = rss(server.process.pid)
    conn = connection(server.port)
    rng = random.Random(4)
    for _ in range(users):
        cookie = "pointapp_session=%032x" % rng.getrandbits(128)
        elapsed, status = timed(conn, "GET", "/surveys", cookie)
        if status != 200:
            raise SystemExit("P4 GET answered %d" % status)
    after, peak = rss(server.process.pid), hwm(server.process.pid)
    files = len([n for n in os.listdir(os.path.join(data, "users")) if n.endswith(".json")])
    server.stop()
    shutil.rmtree(data)
    record("P4", "%.1f MB" % (after / 1024), "≤ 80 MB", after / 1024 <= 80,
           "RSS after %d distinct users (%d user files) = %.1f MB; %.1f MB at start, peak %.1f MB; %.2f of the limit"
           % (users, files, after / 1024, before / 1024, peak / 1024, after / 1024 / 80))


def status_kb(pid, field):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(field + r":\s+(\d+) kB", f.read()).group(1))


rss = lambda pid: status_kb(pid, "VmRSS")
hwm = lambda pid: status_kb(pid, "VmHWM")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10, help="duration of each wrk run")
    parser.add_argument("--users", type=int, default=10_000, help="distinct users for P4")
    parser.add_argument("--post-users", type=int, default=3_000, help="users whose answers P2 posts (enough that no pair is sent twice at 4,000 POST/s)")
    args = parser.parse_args()
    binary, bench = (os.path.join(ROOT, ".build/release", name) for name in ("pointapp", "pointapp-bench"))
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install wrk")
    print("machine: %d cores; %s" % (os.cpu_count(), subprocess.run(["uname", "-sr"], capture_output=True, text=True).stdout.strip()))
    subprocess.run([bench, "micro", "--templates", os.path.join(ROOT, "Templates")], check=True)
    server = crash.Server(binary, tempfile.mkdtemp(prefix="pointapp-bench-data-"), crash.free_port())
    server.start()
    try:
        p1(server, args.seconds)
        p2(server, bench, args.seconds, args.post_users)
        p3(server, bench, 200)
    finally:
        server.stop()
        shutil.rmtree(server.data)
    p4(binary, args.users)
    print("benchmark: %d of %d targets met" % (sum(ok for *_, ok in results), len(results)))


if __name__ == "__main__":
    main()
