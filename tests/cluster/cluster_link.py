#!/usr/bin/env python3
"""Links a corpus in shards with the scripts of packaging/slurm, on a real one-node Slurm cluster
that this script starts on localhost (--engine slurm) or with GNU parallel (--engine parallel),
and checks that the merged result equals a single-process `linkscope-cli link`, byte for byte.
Python 3 standard library only; ctest label "cluster".

Both engines write, under one temporary folder, a corpus of twelve documents made of the demo
project's (resources/demo), link it with one `linkscope-cli link` as the reference, run the
script exactly as docs/cluster.md does (the index built once by `linkscope-cli index`, four
shards at most two at a time, the merge), check that every shard loaded that index rather than
building its own, and compare the merged corpus with the reference.

--engine slurm, before that:
  1. starts munged with a key it writes and its own socket, pid, seed and log files;
  2. writes a minimal slurm.conf (one node "localhost" with this machine's CPUs, one partition,
     proctrack/linuxproc and task/none: no cgroups, no accounting database; two free ports) and
     starts slurmctld and slurmd in the foreground; SlurmUser is the user running the script;
  3. waits for the node to be idle (sinfo) and runs one trivial job to learn that jobs can start
     here at all;
then submits packaging/slurm/submit-link.sh (the index job, the array with one CPU a task, the
merge job that depends on it), polls squeue until every job has left it (sacct needs slurmdbd,
which this cluster has not) and reads each job's end state from scontrol: all must be COMPLETED.
Every daemon it starts is stopped at the end, on success, failure, an exception or SIGTERM: the
daemons run in the foreground as its children, with a parent-death signal besides, and any job
process left behind (found by the cluster's own SLURM_CONF in its environment) is killed by its id.

--engine parallel runs packaging/slurm/link-parallel.sh.

It SKIPS (exit status 77, the reason on standard output) where the engine cannot run here: a
daemon, client or GNU parallel missing (Debian: slurm-wlm, munge, parallel), a daemon that does
not start or a node that does not come up (a busy port, a missing permission: the logs' last
lines are printed), or a trivial job that does not run. Anything wrong after that is a failure.

Time: the Slurm run takes about 10 s on the 2-core development machine, most of it Slurm's
start-up and scheduling, the parallel run a few seconds; the script prints how long each step
took. Its own limit for the whole run is --timeout (default 90 s).

Usage: cluster_link.py --cli build/default/bin/linkscope-cli [--engine slurm|parallel] [--keep]
                       [--timeout 90]
"""
import argparse
import ctypes
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77
SOURCE_DIR = Path(__file__).resolve().parents[2]
DEMO = SOURCE_DIR / "resources" / "demo"
PACKAGING = SOURCE_DIR / "packaging" / "slurm"
SHARDS = 4
AT_ONCE = 2
DOCUMENT_COPIES = 12  # documents in the linked corpus, made of the demo's eight


class Skipped(Exception):
    """The cluster cannot run on this machine: the test is skipped, not failed."""


class Failed(Exception):
    """A check failed."""


def log(message):
    print(message, flush=True)


def tail(path, lines=15):
    try:
        text = Path(path).read_text(errors="replace").splitlines()
    except OSError as error:
        return f"    ({path}: {error.strerror})"
    return "\n".join("    " + line for line in text[-lines:]) or f"    ({path} is empty)"


def program(name):
    """The path of a client or daemon: PATH, then the sbin folders a user's PATH may lack."""
    return shutil.which(name, path=os.pathsep.join(
        [os.environ.get("PATH", os.defpath), "/usr/sbin", "/sbin", "/usr/local/sbin"]))


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def die_with_parent():
    """preexec_fn of the daemons: SIGTERM when this script ends, even by SIGKILL (Linux)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def node_line():
    """slurm.conf's node line for this machine, as `slurmd -C` sees it, named localhost."""
    fields = {}
    try:
        found = subprocess.run([program("slurmd"), "-C"], capture_output=True, text=True, timeout=20)
        for key, value in re.findall(r"(\w+)=(\S+)", found.stdout.splitlines()[0]):
            fields[key] = value
    except (OSError, IndexError, subprocess.TimeoutExpired):
        pass
    keys = ["CPUs", "Boards", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore"]
    topology = " ".join(f"{key}={fields[key]}" for key in keys if key in fields)
    if "CPUs" not in fields:
        topology = f"CPUs={os.cpu_count() or 1}"
    # Memory is not a consumable resource here (CR_Core): a small figure cannot drain the node.
    return f"NodeName=localhost NodeAddr=127.0.0.1 {topology} RealMemory=500 State=UNKNOWN"


class Cluster:
    """munged, slurmctld and slurmd under one folder; stop() ends every process it started."""

    def __init__(self, root):
        self.root = root
        self.conf = root / "slurm.conf"
        self.daemons = []  # (name, Popen, log file)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("SLURM_", "SBATCH_", "SALLOC_", "SRUN_", "SQUEUE_"))}
        self.env["SLURM_CONF"] = str(self.conf)

    def run(self, *command, timeout=30, check=True, **kwargs):
        done = subprocess.run(list(command), env=self.env, capture_output=True, text=True,
                              timeout=timeout, **kwargs)
        if check and done.returncode != 0:
            raise Failed(f"{' '.join(map(str, command))} exited with {done.returncode}:\n"
                         f"{done.stdout}{done.stderr}")
        return done

    def spawn(self, name, command, log_file):
        with open(self.root / f"{name}.out", "w") as out:
            process = subprocess.Popen(command, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        self.daemons.append((name, process, log_file))
        return process

    def start_munge(self):
        munge = self.root / "munge"
        munge.mkdir(mode=0o700)
        key = munge / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self.socket = munge / "munge.socket"
        log_file = munge / "munged.log"
        process = self.spawn("munged", [
            program("munged"), "--foreground", "--force", f"--socket={self.socket}", f"--key-file={key}",
            f"--pid-file={munge / 'munged.pid'}", f"--seed-file={munge / 'munged.seed'}",
            f"--log-file={log_file}"], log_file)
        self.wait_for(lambda: self.socket.exists(), process, "munged", 10)

    def write_conf(self, user):
        state, spool = self.root / "state", self.root / "spool"
        state.mkdir()
        spool.mkdir()
        self.ctld_port, self.slurmd_port = free_port(), free_port()
        while self.slurmd_port == self.ctld_port:
            self.slurmd_port = free_port()
        self.conf.write_text(f"""\
ClusterName=linkscopetest
SlurmctldHost=localhost
SlurmctldPort={self.ctld_port}
SlurmdPort={self.slurmd_port}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.socket}
StateSaveLocation={state}
SlurmdSpoolDir={spool}
SlurmctldPidFile={self.root / 'slurmctld.pid'}
SlurmdPidFile={self.root / 'slurmd.pid'}
SlurmctldLogFile={self.root / 'slurmctld.log'}
SlurmdLogFile={self.root / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MailProg=/bin/true
SlurmdTimeout=30
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
{node_line()}
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
""")

    def start_slurm(self):
        ctld = self.spawn("slurmctld", [program("slurmctld"), "-D", "-i", "-f", str(self.conf)],
                          self.root / "slurmctld.log")
        # The controller answers before slurmd registers with it.
        self.wait_for(lambda: self.run("sinfo", "-h", check=False, timeout=5).returncode == 0,
                      ctld, "slurmctld", 20)
        slurmd = self.spawn("slurmd", [program("slurmd"), "-D", "-N", "localhost", "-f", str(self.conf)],
                            self.root / "slurmd.log")

        def idle():
            state = self.run("sinfo", "-h", "-N", "-o", "%t", check=False, timeout=5).stdout
            return state.strip().rstrip("*") == "idle"

        self.wait_for(idle, slurmd, "slurmd", 30, also=ctld)

    def wait_for(self, ready, process, name, seconds, also=None):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for watched in (process, also):
                if watched is not None and watched.poll() is not None:
                    raise Skipped(self.why_not(f"{name} exited with {watched.returncode}"))
            try:
                if ready():
                    return
            except subprocess.TimeoutExpired:
                pass
            time.sleep(0.2)
        raise Skipped(self.why_not(f"{name} not ready within {seconds} s"))

    def why_not(self, what):
        lines = [f"the one-node Slurm cannot run here: {what}"]
        for name, _, log_file in self.daemons:
            lines.append(f"  {name}:")
            if log_file.exists():
                lines += [f"  {log_file}:", tail(log_file)]
            lines += ["  its output:", tail(self.root / f"{name}.out", 5)]
        return "\n".join(lines)

    def our_processes(self):
        """Pids of processes started by this cluster's daemons (slurmstepd, the jobs)."""
        marker = f"SLURM_CONF={self.conf}".encode()
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                if marker in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                continue
        return pids

    def stop(self):
        controller = [process for name, process, _ in self.daemons if name == "slurmctld"]
        if controller and controller[0].poll() is None:
            try:
                self.run("scancel", "--quiet", "--full", f"--user={os.getuid()}", check=False,
                         timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        for name, process, _ in reversed(self.daemons):  # slurmd, slurmctld, then munged
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        for pid in self.our_processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.daemons = []


def demo_documents():
    """The demo project's PubTator documents, each a list of lines."""
    documents = []
    for name in ("demo-train.txt", "demo-test.txt"):
        for block in (DEMO / name).read_text().split("\n\n"):
            lines = [line for line in block.splitlines() if line]
            if lines:
                documents.append(lines)
    return documents


def write_corpus(path):
    """DOCUMENT_COPIES documents cycled from the demo's, each under a PMID of its own."""
    documents = demo_documents()
    out = []
    for number in range(DOCUMENT_COPIES):
        lines = documents[number % len(documents)]
        pmid = lines[0].split("|", 1)[0]
        fresh = str(70000000 + number)
        out.append("\n".join(fresh + line[len(pmid):] for line in lines))
    path.write_text("\n\n".join(out) + "\n")


def job_states(cluster, job):
    """{task or job: state} of a job (an array gives one entry per task), from scontrol."""
    shown = cluster.run("scontrol", "-o", "show", "job", job, check=False).stdout
    states = {}
    for line in shown.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        key = fields.get("JobId", "?")
        if fields.get("ArrayTaskId"):
            key = f"{fields.get('ArrayJobId')}_{fields['ArrayTaskId']}"
        states[key] = fields.get("JobState", "?")
    return states


def wait_for_empty_queue(cluster, deadline):
    """Polls squeue until no job is pending, running or completing; Failed at the deadline."""
    while True:
        queued = cluster.run("squeue", "-h", "-o", "%i %T %r").stdout.strip()
        if not queued:
            return
        if time.monotonic() > deadline:
            raise Failed(f"jobs still queued at the time limit:\n{queued}")
        time.sleep(0.2)


def prepare(cli, work, run):
    """The corpus, link's and index's arguments and the single-process reference in `work`.

    link's dictionary is the KB's names and the training mentions: what `index` builds for the dev
    split (BioSyn's dev dictionary), hence --dev and --split dev, with the demo's training corpus
    standing in as the dev split that index reads but does not add.
    """
    work.mkdir()
    corpus = work / "corpus.txt"
    write_corpus(corpus)
    train = str(DEMO / "demo-train.txt")
    dictionary = ["--kb", str(DEMO / "demo-kb.txt"), "--train", train]
    index_args = [*dictionary, "--dev", train, "--split", "dev"]
    link_args = ["--corpus", str(corpus), *dictionary, "--method", "sparse"]
    reference = work / "reference.txt"
    run(str(cli), "link", *link_args, "--out", str(reference), cwd=work)
    return index_args, link_args, reference


def check_index_read(task_logs):
    """Every link task loaded the index of the index step, none built its own."""
    if len(task_logs) != SHARDS:
        raise Failed(f"expected {SHARDS} link task logs, got {len(task_logs)}")
    for name, text in task_logs.items():
        if "Loading sparse index" not in text or "Building sparse index" in text:
            raise Failed(f"{name}: the task did not load the index built beforehand:\n{text}")
    log(f"   each of the {SHARDS} link tasks loaded the index built once")


def compare(merged, reference):
    if not merged.is_file():
        raise Failed(f"no merged corpus: {merged} is missing")
    if merged.read_bytes() != reference.read_bytes():
        diff = subprocess.run(["diff", str(reference), str(merged)], capture_output=True,
                              text=True).stdout
        raise Failed(f"the merged corpus differs from the single-process link:\n{diff[:3000]}")
    log(f"   {merged.name} equals the single-process output ({merged.stat().st_size} bytes, "
        f"{DOCUMENT_COPIES} documents in {SHARDS} shards)")


def on_slurm(cli, root, step, deadline):
    """Raises Skipped, Failed, or returns when the merged corpus equals the reference."""
    cluster = Cluster(root)
    try:
        step("starting munged, slurmctld and slurmd")
        needed = ["munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo",
                  "scontrol", "scancel"]
        missing = [name for name in needed if program(name) is None]
        if missing:
            raise Skipped(f"{', '.join(missing)} not installed (Debian: apt-get install slurm-wlm "
                          "munge)")
        cluster.start_munge()
        cluster.write_conf(pwd.getpwuid(os.getuid()).pw_name)
        cluster.start_slurm()

        step("a trivial job")
        probe = cluster.run("sbatch", "--parsable", f"--output={root / 'probe.log'}",
                            f"--chdir={root}", "--wrap=true", check=False)
        probe_id = probe.stdout.strip().split(";")[0]
        if probe.returncode == 0:
            wait_for_empty_queue(cluster, time.monotonic() + 30)
        if probe.returncode != 0 or job_states(cluster, probe_id) != {probe_id: "COMPLETED"}:
            raise Skipped(cluster.why_not(
                f"a trivial job did not run (sbatch: {probe.returncode} {probe.stderr.strip()}; "
                f"scontrol: {job_states(cluster, probe_id) if probe_id else '-'})\n"
                f"  job log:\n{tail(root / 'probe.log')}"))

        step("the corpus and the single-process reference")
        work = root / "work"
        index_args, link_args, reference = prepare(cli, work, cluster.run)

        step(f"submit-link.sh: the index job, {SHARDS} shards ({AT_ONCE} at a time), the merge")
        submitted = cluster.run(
            "bash", str(PACKAGING / "submit-link.sh"), "--shards", str(SHARDS),
            "--max-running", str(AT_ONCE), "--out", "shards", "--merged", "merged.txt",
            "--cli", str(cli), "--sbatch-option=--cpus-per-task=1",
            "--", "index", *index_args, "--sparse-index", "kb.sparse",
            "--", "link", *link_args, "--index", "kb.sparse", cwd=work)
        jobs = dict(re.findall(r"^(\w+_job)=(\d+)$", submitted.stdout, re.M))
        if set(jobs) != {"index_job", "array_job", "merge_job"}:
            raise Failed(f"submit-link.sh printed no job ids:\n{submitted.stdout}{submitted.stderr}")
        log(f"   jobs: {jobs}")

        step("waiting for the jobs to leave the queue")
        wait_for_empty_queue(cluster, deadline)

        step("checking the jobs' end states and the merged corpus")
        states = {}
        for job in jobs.values():
            states.update(job_states(cluster, job))
        log(f"   states: {states}")
        if any(state != "COMPLETED" for state in states.values()) or len(states) != SHARDS + 2:
            logs = sorted((work / "shards.logs").glob("*.log"))
            raise Failed(f"expected {SHARDS + 2} COMPLETED jobs, got {states}\n" + "\n".join(
                f"  {path.name}:\n{tail(path)}" for path in logs))
        check_index_read({path.name: path.read_text(errors="replace")
                          for path in (work / "shards.logs").glob("link-*.log")})
        compare(work / "merged.txt", reference)
    finally:
        step("stopping the daemons")
        cluster.stop()


def on_parallel(cli, root, step, deadline):
    """link-parallel.sh: the same steps with GNU parallel on this machine."""
    if program("parallel") is None:
        raise Skipped("GNU parallel is not installed (Debian: apt-get install parallel)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}

    def run(*command, cwd=None):
        done = subprocess.run(list(command), env=env, capture_output=True, text=True, cwd=cwd,
                              timeout=max(1, deadline - time.monotonic()))
        if done.returncode != 0:
            raise Failed(f"{' '.join(command)} exited with {done.returncode}:\n"
                         f"{done.stdout}{done.stderr}")
        return done

    step("the corpus and the single-process reference")
    work = root / "work"
    index_args, link_args, reference = prepare(cli, work, run)
    step(f"link-parallel.sh: the index, {SHARDS} shards ({AT_ONCE} at a time), the merge")
    done = run("bash", str(PACKAGING / "link-parallel.sh"), "--shards", str(SHARDS), "--jobs",
               str(AT_ONCE), "--out", "shards", "--merged", "merged.txt", "--cli", str(cli),
               "--", "index", *index_args, "--sparse-index", "kb.sparse",
               "--", "link", *link_args, "--index", "kb.sparse", cwd=work)
    step("checking the merged corpus")
    # parallel --tag prefixes every line of a shard's output with its number and a tab.
    task_logs = {}
    for line in (done.stdout + done.stderr).splitlines():
        shard, tab, text = line.partition("\t")
        if tab and shard.isdigit():
            task_logs.setdefault(f"shard {shard}", []).append(text)
    check_index_read({name: "\n".join(lines) for name, lines in task_logs.items()})
    compare(work / "merged.txt", reference)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True, type=Path)
    parser.add_argument("--engine", choices=["slurm", "parallel"], default="slurm")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--timeout", type=float, default=90)
    args = parser.parse_args()
    cli = args.cli.resolve()
    if not cli.is_file():
        print(f"cluster_link.py: {cli} is missing: build linkscope-cli first", file=sys.stderr)
        return 2

    started = time.monotonic()
    steps = []

    def step(name):
        steps.append((name, time.monotonic()))
        log(f"-- {name}")

    # SIGTERM ends the run through the finally clauses, which stop the daemons; after a SIGKILL
    # their parent-death signal does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("cluster_link.py: terminated"))

    # A short path: munged's socket path must fit a sockaddr_un.
    root = Path(tempfile.mkdtemp(prefix="lscl.", dir="/tmp" if Path("/tmp").is_dir() else None))
    root.chmod(0o755)  # slurmd and the jobs run as the submitting user
    engine = on_slurm if args.engine == "slurm" else on_parallel
    outcome = "FAIL"
    try:
        engine(cli, root, step, started + args.timeout)
        outcome = "PASS"
    except Skipped as why:
        log(f"SKIP: {why}")
        outcome = "SKIP"
    except Failed as why:
        log(f"FAIL: {why}")
    finally:
        ended = time.monotonic()
        for (name, at), (_, until) in zip(steps, steps[1:] + [(None, ended)]):
            log(f"   {until - at:5.1f} s  {name}")
        log(f"   {ended - started:5.1f} s  in all")
        if outcome == "FAIL" or args.keep:
            log(f"   kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    log(outcome)
    return {"PASS": 0, "SKIP": SKIP, "FAIL": 1}[outcome]


if __name__ == "__main__":
    sys.exit(main())
