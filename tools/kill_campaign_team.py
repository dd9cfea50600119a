"""The `team` kind of tools/kill_campaign.py: a PostgreSQL server of the campaign's own (initdb into
a temporary folder, Unix socket only, fsync on: durable) with simulated curators
(`linkscope-cli simulate-curation --curator`, separate processes, shared mode) writing decisions
all the time; the server (postmaster and backends: its whole process group) is SIGKILLed at seeded
random moments and started again, and some curator processes are SIGKILLed and started again.

Work comes in rounds, one team project (database) each. After a round, what must hold:
- every decision a curator process that ended normally reported stored (its --json report) is in
  the store, under its login, in effect;
- nothing else is: every stored decision is of a mention of the corpus, in effect, at most one per
  mention (shared mode), and each login holds exactly its reported decisions plus at most what its
  killed processes could have committed (their rate times their lifetime, plus one, at most their
  --limit), since what a killed process printed is not trusted;
- `linkscope-cli project check` passes (every row read, its checksum verified).
"""
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

CURATORS = 4
RATE = 20.0  # decisions a second per curator: always one commit in flight somewhere
SERVER_KILLS_PER_ROUND = 10


class TeamSkip(Exception):
    """PostgreSQL's server programs are not installed."""


def pg_bin():
    given = os.environ.get("LINKSCOPE_PG_BIN")
    if given:
        return given if os.path.exists(os.path.join(given, "initdb")) else None
    base = Path("/usr/lib/postgresql")
    candidates = [str(p / "bin") for p in sorted(base.iterdir(), reverse=True)] if base.is_dir() else []
    found = shutil.which("initdb")
    if found:
        candidates.append(str(Path(found).resolve().parent))
    for folder in candidates:
        if os.path.exists(os.path.join(folder, "initdb")) and os.path.exists(os.path.join(folder, "pg_ctl")):
            return folder
    return None


class Server:
    """As tests/common/postgres_server.h with Durability::Full, from Python."""

    def __init__(self, failure):
        self.failure = failure
        self.bin = pg_bin()
        if not self.bin:
            raise TeamSkip("PostgreSQL's initdb is not installed (apt-get install postgresql)")
        self.as_postgres = os.geteuid() == 0
        self.dir = Path(tempfile.mkdtemp(prefix="linkscope-pg-"))
        if self.as_postgres:
            account = pwd.getpwnam("postgres")
            os.chown(self.dir, account.pw_uid, account.pw_gid)
        self.data = self.dir / "data"
        self.options = "-k %s -c listen_addresses='' -c max_connections=60 -c fsync=on" % self.dir
        self.running = False

    def tool(self, name, *args, check=True):
        argv = [os.path.join(self.bin, name)] + list(args)
        if self.as_postgres:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        if check and result.returncode != 0:
            raise self.failure("%s failed: %s%s" % (name, (result.stdout + result.stderr).strip()[-400:], self.log()))
        return result.stdout

    def log(self):
        try:
            return "\nserver log (end):\n" + (self.dir / "server.log").read_text(errors="replace")[-1500:]
        except OSError:
            return ""

    def start(self):
        self.tool("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C")
        self.pg_start()
        # Stops the server and removes its folder should this process die first.
        stop = ("runuser -u postgres -- " if self.as_postgres else "") + "'%s/pg_ctl' -D '%s' -m immediate stop" % (
            self.bin, self.data)
        subprocess.Popen(["sh", "-c", "while kill -0 %d 2>/dev/null; do sleep 0.5; done; %s; rm -rf '%s'" % (
            os.getpid(), stop, self.dir)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)

    def pg_start(self):
        self.tool("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "server.log"), "-o", self.options, "-w", "-t",
                  "60", "start")
        self.running = True

    def kill_and_restart(self):
        """SIGKILL to the postmaster's process group (pg_ctl starts it in a session of its own: the
        group is the server and its backends), as a power cut or an OOM kill ends it; then a start
        on the same folder, which recovers from the WAL. Returns the seconds the restart took."""
        pid = int((self.data / "postmaster.pid").read_text().split("\n")[0])
        os.killpg(pid, signal.SIGKILL)
        for _ in range(200):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        else:
            raise self.failure("the postmaster %d outlived SIGKILL" % pid)
        self.running = False
        started = time.monotonic()
        self.pg_start()
        took = time.monotonic() - started
        # Kills seconds apart never let a checkpoint finish, so each crash recovery would replay
        # all the WAL written since the first kill and the restarts would grow without bound (past
        # the curators' reconnect window). A server that runs between crashes checkpoints; this
        # one is asked to at once.
        self.sql("postgres", "CHECKPOINT")
        return took

    def stop(self):
        if self.running:
            self.tool("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
            self.running = False
        shutil.rmtree(self.dir, ignore_errors=True)

    def uri(self, database, user="postgres"):
        return "postgresql:///%s?host=%s&user=%s" % (database, self.dir, user)

    def sql(self, database, statements):
        return self.tool("psql", "-h", str(self.dir), "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1",
                         "-At", "-F", "\t", "-c", statements)


class Curator:
    """One simulate-curation process; its report goes to a file (no pipe: nothing to drain)."""

    def __init__(self, argv, out, err, env):
        self.out, self.err = out, err
        with open(out, "wb") as o, open(err, "wb") as e:
            self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=o, stderr=e, env=env)
        self.started = time.monotonic()
        self.killed_after = None

    def running(self):
        return self.process.poll() is None

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.killed_after = time.monotonic() - self.started


class TeamCampaign:
    def __init__(self, campaign, failure):
        self.c = campaign
        self.failure = failure
        self.server = Server(failure)
        self.round = 0
        self.limit = 0

    def setup(self):
        work = self.c.work
        # A corpus big enough that the curators never run out within a round.
        # simulate-curation walks a dev or test split: the big corpus is the test split here.
        self.mentions = {("test", m[0], m[1], m[2]) for m in self.c.write_corpus(100)}
        manifest = {"format": "linkscope-project-manifest", "version": 1, "name": "kill campaign team",
                    "knowledgeBase": {"path": str(work / "kb.txt"), "format": "medic"},
                    "corpora": [{"split": "train", "path": str(work / "test.txt"), "format": "pubtator"},
                                {"split": "test", "path": str(work / "train.txt"), "format": "pubtator"}]}
        (work / "team.json").write_text(json.dumps(manifest, indent=2))
        self.server.start()
        self.server.sql("postgres", "; ".join("CREATE ROLE curator%d LOGIN" % c for c in range(CURATORS)))
        # Enough decisions per process to outlast a round of kills.
        self.limit = int(len(self.mentions) / (CURATORS * 2))
        self.c.log("team: %d mentions, %d curators at %.0f decisions/s each, --limit %d, %d server kills a round"
                   % (len(self.mentions), CURATORS, RATE, self.limit, SERVER_KILLS_PER_ROUND))

    def close(self):
        self.server.stop()

    def curator(self, database, login, serial):
        argv = [self.c.cli, "simulate-curation", "--order", "queue", "--project", self.server.uri(database, login),
                "--curator", login, "--rate", str(RATE), "--limit", str(self.limit),
                "--train", str(self.c.work / "test.txt"), "--dev", str(self.c.work / "test.txt"),
                "--test", str(self.c.work / "train.txt"), "--kb", str(self.c.work / "kb.txt"), "--split", "test",
                "--json"]
        stem = self.c.work / ("%s-%s-%d" % (database, login, serial))
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", "1")
        return Curator(argv, str(stem) + ".json", str(stem) + ".err", env)

    def trial(self, rng, wanted):
        """One round on a new team project: at most `wanted` server kills (and some curator kills)
        while the curators write, then the checks. Returns (server kills, curator kills, how)."""
        database = "team_%d" % self.round
        self.round += 1
        owner = self.server.uri(database)
        self.server.tool("createdb", "-h", str(self.server.dir), "-U", "postgres", database)
        self.c.run(["project", "create", "--manifest", str(self.c.work / "team.json"), "--store", owner])
        for c in range(CURATORS):
            self.c.run(["project", "grant", owner, "curator%d" % c, "--role", "curator"])
        serial = 0
        live = {}
        ended = []  # (login, Curator)
        for c in range(CURATORS):
            login = "curator%d" % c
            live[login] = self.curator(database, login, serial)
            serial += 1
        server_kills, curator_kills, restart_seconds = 0, 0, []
        target = min(wanted, SERVER_KILLS_PER_ROUND)
        try:
            # The first commits come once the curators have loaded the corpus.
            deadline = time.monotonic() + 60
            while self.stored_count(database) == 0:
                if time.monotonic() > deadline or not any(p.running() for p in live.values()):
                    raise self.failure("round %s: no curator stored anything" % database)
                time.sleep(0.1)
            while server_kills < target:
                time.sleep(rng.uniform(0.1, 1.5))
                running = [login for login, p in live.items() if p.running()]
                if not running:
                    break
                if rng.random() < 0.25:
                    login = rng.choice(running)
                    live[login].kill()
                    ended.append((login, live[login]))
                    live[login] = self.curator(database, login, serial)
                    serial += 1
                    curator_kills += 1
                else:
                    restart_seconds.append(self.server.kill_and_restart())
                    server_kills += 1
            for login, process in live.items():
                try:
                    process.process.wait(timeout=600)
                except subprocess.TimeoutExpired:
                    process.kill()
                    raise self.failure("round %s: %s did not end (a hang)" % (database, login))
                ended.append((login, process))
        finally:
            for process in live.values():
                if process.running():
                    process.kill()
        self.check(database, owner, ended)
        how = "%s: %d server kills (restart %.1f s at most), %d curator kills" % (
            database, server_kills, max(restart_seconds or [0]), curator_kills)
        return server_kills, curator_kills, how

    def stored_count(self, database):
        try:
            return int(self.server.sql(database, "SELECT count(*) FROM decisions").strip() or 0)
        except self.failure:
            return 0

    def check(self, database, owner, ended):
        self.c.run(["project", "check", owner])
        rows = self.server.sql(database, 'SELECT login, split, document, start, "end", new_link, state '
                                         'FROM decisions ORDER BY id')
        stored = {}
        per_mention = {}
        for line in rows.splitlines():
            if not line:
                continue
            login, split, document, start, end, link, state = line.split("\t")
            mention = (split, document, int(start), int(end))
            if mention not in self.mentions:
                raise self.failure("%s: a stored decision of no mention of the corpus: %s" % (database, line))
            if state != "done":
                raise self.failure("%s: a stored decision %s (no curator undoes): %s" % (database, state, line))
            per_mention[mention] = per_mention.get(mention, 0) + 1
            if per_mention[mention] > 1:
                raise self.failure("%s: two decisions on one mention in shared mode: %s" % (database, line))
            stored.setdefault(login, set()).add(mention + (link,))
        reported, bound = {}, {}
        for login, process in ended:
            if process.killed_after is not None:
                at_most = min(self.limit, int(process.killed_after * RATE) + 1)
                bound[login] = bound.get(login, 0) + at_most
                continue
            if process.process.returncode != 0:
                raise self.failure("%s: %s exited %d: %s" % (database, login, process.process.returncode,
                                                            Path(process.err).read_text(errors="replace")[-400:]))
            report = json.loads(Path(process.out).read_text())
            for d in report["decisions"]:
                key = (d["split"], d["document"], d["start"], d["end"], d["link"])
                if key in reported.setdefault(login, set()):
                    raise self.failure("%s: %s reported one decision twice: %s" % (database, login, key))
                reported[login].add(key)
        for login in set(stored) | set(reported):
            have, told = stored.get(login, set()), reported.get(login, set())
            missing = told - have
            if missing:
                raise self.failure("%s: %d decisions %s was told were stored are not in the store, e.g. %s" % (
                    database, len(missing), login, sorted(missing)[:2]))
            extra = len(have) - len(told)
            if extra > bound.get(login, 0):
                raise self.failure("%s: the store holds %d decisions of %s that no process of it reported, more "
                                   "than its killed processes could have made (%d)" % (
                                       database, extra, login, bound.get(login, 0)))
        total = sum(len(s) for s in stored.values())
        self.c.log("team %s: %d decisions stored, %d reported by curators that ended, %d by killed ones (bound %d)"
                   % (database, total, sum(len(s) for s in reported.values()),
                      total - sum(len(s) for s in reported.values()), sum(bound.values())))
