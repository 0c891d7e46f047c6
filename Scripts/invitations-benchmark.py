#!/usr/bin/env python3
"""Invitations to many members: how long publishing takes, how fast the worker invites, and how
much the server's memory grows meanwhile (issue 38: 100,000 members, RSS growth under 30 MB).

Seeds verified members straight into a fresh data folder (`pointapp-bench seed-members`: no
bcrypt), starts the release server with `--notice-rate`, publishes a survey from the console as
an operator does, and follows the pass (`data/notice-runs/`) until it has looked at every member,
sampling the server's RSS twice a second. The mail itself goes to the outbox folder meanwhile.

  swift build -c release --product pointapp --product pointapp-bench
  python3 Scripts/invitations-benchmark.py [--members 100000] [--rate 1000]
"""
import argparse
import datetime
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("crash_test", os.path.join(ROOT, "Scripts", "crash-test.py"))
ct = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ct)


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(f.read().split("VmRSS:")[1].split()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/pointapp"))
    parser.add_argument("--bench", default=os.path.join(ROOT, ".build/release/pointapp-bench"))
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--rate", type=int, default=1000, help="--notice-rate of the server")
    args = parser.parse_args()

    data = tempfile.mkdtemp(prefix="pointapp-invitations-")
    started = time.time()
    subprocess.run([args.bench, "seed-members", "--data", data, "--count", str(args.members)], check=True, capture_output=True)
    print("seeded %d verified members in %.0f s" % (args.members, time.time() - started))
    ct.Console.create(args.binary, data)
    server = ct.Server(args.binary, data, ct.free_port(), extra=["--notice-rate", str(args.rate)])
    server.start()
    try:
        console = ct.Console(server.port)
        survey, fields = console.draft()
        moment = datetime.datetime.fromtimestamp(time.time() - 120, datetime.timezone(datetime.timedelta(hours=9)))
        for name, value in (("title", "ベンチマークの調査"), ("description", "招待の速さを測る調査"), ("reward", "10"), ("minutes", "1"),
                            ("publishAt", moment.strftime("%Y-%m-%dT%H:%M")), ("deadline", ""), ("q.0.text", "はい、を選んでください"),
                            ("q.0.choices", "はい\nいいえ")):
            fields = ct.with_field(fields, name, value)
        time.sleep(2)  # the day's expiry pass over the same members goes first: measured apart
        while any(n.startswith("run-") for n in os.listdir(os.path.join(data, "notice-runs"))):
            time.sleep(0.5)
        before = rss_kb(server.process.pid)
        published_at = time.time()
        if not console.publish(survey, fields):
            raise SystemExit("the publication was refused")
        publish_ms = (time.time() - published_at) * 1000
        done = os.path.join(data, "notice-runs", "done-invite-%s.json" % survey)
        peak = before
        while not os.path.exists(done):
            peak = max(peak, rss_kb(server.process.pid))
            if time.time() - published_at > 3600:
                raise SystemExit("the pass did not end within an hour")
            time.sleep(0.5)
        elapsed = time.time() - published_at
        peak = max(peak, rss_kb(server.process.pid))
        progress = ct.record(done)["progress"]
        outbox = len(os.listdir(os.path.join(data, "mail-outbox")))
        queued = len([n for n in os.listdir(os.path.join(data, "mail-queue")) if n.startswith("b-")])
    finally:
        server.stop()
    growth = (peak - before) / 1024
    print("invitations: publishing answered in %.0f ms; the pass looked at %d members and queued %d invitations in %.0f s "
          "(%.0f members/s, %.0f invitations/s at --notice-rate %d); %d messages delivered to the outbox folder meanwhile, %d "
          "still queued; RSS %.1f MB before, %.1f MB at most: growth %.1f MB (target < 30 MB: %s)"
          % (publish_ms, progress["examined"], progress["sent"], elapsed, progress["examined"] / elapsed, progress["sent"] / elapsed,
             args.rate, outbox, queued, before / 1024, peak / 1024, growth, "met" if growth < 30 else "MISSED"))
    subprocess.run(["rm", "-rf", data])
    sys.exit(0 if growth < 30 and progress["sent"] == args.members else 1)


if __name__ == "__main__":
    main()
