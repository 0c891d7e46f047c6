#!/usr/bin/env python3
"""A throwaway PostgreSQL cluster on loopback, for tests, the scale-out proof and benchmarks.

    python3 Scripts/pgcluster.py start FOLDER   # prints the database URL
    python3 Scripts/pgcluster.py stop FOLDER

The cluster lives in FOLDER (initdb there, trust authentication, a unix socket there too) and
listens on 127.0.0.1 on a free port; its database `pointapp` belongs to the role `pointapp`.
Uses Debian's server binaries (apt-get install postgresql); as root, they run as `postgres`.
Import it to restart the server mid-run (`Cluster.restart`).
"""
import glob, os, shutil, socket, subprocess, sys, time


def binaries():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    if initdb:
        return os.path.dirname(initdb)
    sys.exit("PostgreSQL's server is not installed: apt-get install postgresql")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, folder, port=None):
        self.folder = os.path.abspath(folder)
        self.data = os.path.join(self.folder, "data")
        self.bin = binaries()
        port_file = os.path.join(self.folder, "port")
        if port is None and os.path.exists(port_file):
            port = int(open(port_file).read())
        self.port = port or free_port()

    @property
    def url(self):
        return "postgres://pointapp@127.0.0.1:%d/pointapp?sslmode=disable" % self.port

    def _run(self, *command, check=True):
        # initdb and the server refuse to run as root.
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run(prefix + list(command), check=check, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def start(self):
        os.makedirs(self.folder, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            os.chmod(self.folder, 0o755)
        if not os.path.exists(os.path.join(self.data, "PG_VERSION")):
            self._run(os.path.join(self.bin, "initdb"), "-D", self.data, "-U", "pointapp", "--auth=trust",
                      "-E", "UTF8", "--no-locale")
            with open(os.path.join(self.folder, "port"), "w") as f:
                f.write(str(self.port))
            if os.geteuid() == 0:
                shutil.chown(os.path.join(self.folder, "port"), "postgres", "postgres")
            created = True
        else:
            created = False
        self._server("start")
        if created:
            self._run(os.path.join(self.bin, "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "pointapp", "pointapp")
        return self.url

    def _server(self, verb, mode="fast"):
        options = "-p %d -h 127.0.0.1 -k %s -c max_connections=200" % (self.port, self.folder)
        command = [os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-l", os.path.join(self.folder, "server.log"), "-w", "-t", "60"]
        if verb == "start":
            command += ["-o", options, "start"]
        else:
            command += ["-m", mode, verb]
        result = self._run(*command, check=False)
        if result.returncode != 0 and verb != "stop":
            log = open(os.path.join(self.folder, "server.log")).read()[-2000:] if os.path.exists(os.path.join(self.folder, "server.log")) else ""
            raise RuntimeError("pg_ctl %s failed: %s\n%s" % (verb, result.stdout, log))

    def stop(self, mode="fast"):
        self._server("stop", mode)

    def restart(self, down_seconds=0.0, mode="immediate"):
        """Stops the server at once (open connections are cut), waits, starts it again."""
        self.stop(mode)
        time.sleep(down_seconds)
        self._server("start")

    def psql(self, sql):
        """Runs SQL through psql; returns its rows as lists of fields (tab-separated, unaligned)."""
        result = subprocess.run(["psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", self.url.split("?")[0], "-c", sql],
                                check=True, stdout=subprocess.PIPE, text=True)
        return [line.split("\t") for line in result.stdout.splitlines() if line]


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit(__doc__)
    cluster = Cluster(sys.argv[2])
    if sys.argv[1] == "start":
        print(cluster.start())
    else:
        cluster.stop()


if __name__ == "__main__":
    main()
