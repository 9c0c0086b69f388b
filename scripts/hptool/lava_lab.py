# SPDX-License-Identifier: GPL-2.0
"""hptool lava-lab (make lava-lab): a LAVA lab on this one machine. Debian's lava-server
(gunicorn, lava-scheduler) on a throwaway PostgreSQL cluster, a lava-worker pointed at it,
the qemu device type and one device with make lava's device dictionary; make lava's job
submitted with lavacli, its results read back through the server's XML-RPC API (lavacli
results) and compared with report.json as make lava does. No systemd: each service is
started here by its own command and stopped at the end (and on any failure or signal).
Ends with "N passed, N failed".

usage: hptool lava-lab [TARGET] [--minutes N]   (default x86_64-gcc; the job's limit in
minutes, env LAB_MINUTES, 30)
State: the LAVA side (job outputs, device dictionary, worker, logs) in
~/.cache/hardprobe/lava-lab, emptied at each start; the PostgreSQL cluster in a
/tmp/hardprobe-lava-lab-pg.* directory removed at the end (PostgreSQL runs as the postgres
user, which cannot enter root's home). Outputs: results/lava-lab/<target>/.
"""
import argparse
import base64
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from . import CACHE, TOP, Error, read_text, say, tool, tool_env, to_log
from . import targets
from .check import Log
from .lava_run import compared

PGBIN = "/usr/lib/postgresql/15/bin"
WORKER, DEVICE = "hp-lab", "hp-qemu-01"


class Failed(Exception):
    """a step failed: its check line is recorded, the lab stops"""


class Interrupted(Exception):
    """SIGINT or SIGTERM: the lab stops, and counts as failed"""


def why(path):
    """why a command failed: the last non-empty line of its log"""
    last = [ln for ln in read_text(path).splitlines() if ln.strip()]
    return last[-1][:300] if last else ""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def job_field(text, name):
    """a field of lavacli jobs show's answer ("state  : Finished")"""
    m = re.search(rf"^{name} *: (.*)$", text, re.M)
    return m.group(1).strip() if m else ""


class Lab:
    """the services this run started, each in a session of its own, and the PostgreSQL
    cluster; stop() ends them newest first, each with its process group and every
    descendant (the worker's lava-run and QEMU run outside the worker's group)"""

    def __init__(self, name, state, record):
        self.name, self.state, self.record = name, state, record
        self.procs, self.pg, self.host, self.token = [], None, None, None

    @property
    def url(self):
        return f"http://{self.host}"

    def log(self, what):
        return os.path.join(self.state, "log", what)

    def fail(self, step, reason):
        self.record(f"check lava-lab-{step}-{self.name}: FAIL ({reason})")
        raise Failed(step)

    def ok(self, step, detail):
        self.record(f"check lava-lab-{step}-{self.name}: ok ({detail})")

    def logged(self, argv, what, env=None, user=None):
        """@argv, its output into the state's log/@what.log; its status"""
        if user:
            argv = ["runuser", "-u", user, "--", *argv]
        return to_log(argv, self.log(f"{what}.log"), env=env or dict(os.environ))

    def start(self, argv, what, cwd=None):
        """a service in a session of its own, its output into log/@what.out"""
        with open(self.log(f"{what}.out"), "wb") as out:
            p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        self.procs.append(p)
        return p

    def lava(self, *args, out=None):
        """lavacli against this lab's server: (status, stdout text)"""
        p = subprocess.run(["lavacli", "--uri", f"http://admin:{self.token}@{self.host}/RPC2",
                            *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=out or subprocess.DEVNULL, text=True, errors="replace")
        return p.returncode, p.stdout

    @staticmethod
    def table():
        """{pid: (ppid, process group, start time)} of the processes that run (a zombie
        waiting for its reaper does not); the start time tells a reused pid from the old"""
        out = {}
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses
                    f = f.read().rsplit(")", 1)[1].split()
                    if f[0] != "Z":
                        out[int(pid)] = (int(f[1]), int(f[2]), int(f[19]))
            except (OSError, IndexError, ValueError):
                continue
        return out

    @classmethod
    def tree(cls, pgid):
        """{pid: start time} of a service's processes: its process group and every
        descendant, also one in a session of its own (lava-run starts QEMU on a terminal
        of its own)"""
        table = cls.table()
        found = {pid for pid, v in table.items() if v[1] == pgid}
        more = found
        while more:
            more = {pid for pid, v in table.items() if v[0] in more} - found
            found |= more
        return {pid: table[pid][2] for pid in found}

    @classmethod
    def alive(cls, pgid, procs=None):
        """{pid: start time} of the processes of group @pgid and of @procs that still run"""
        table = cls.table()
        return {pid: v[2] for pid, v in table.items()
                if v[1] == pgid or (procs and procs.get(pid) == v[2])}

    def stop(self):
        left = []
        for p in reversed(self.procs):
            # the whole tree, taken before a signal: an orphan is reparented and lost
            procs = self.tree(p.pid)
            for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 1)):
                for pid in self.alive(p.pid, procs):
                    try:
                        os.kill(pid, sig)
                    except ProcessLookupError:
                        pass
                end = time.time() + wait
                while time.time() < end and self.alive(p.pid, procs):
                    p.poll()
                    time.sleep(0.5)
                procs.update(self.tree(p.pid))
                if not self.alive(p.pid, procs):
                    break
            p.poll()
            left += [str(pid) for pid in self.alive(p.pid, procs)]
        if self.pg:
            if os.path.isfile(os.path.join(self.pg, "data", "postmaster.pid")) and \
                    self.logged([f"{PGBIN}/pg_ctl", "-D", os.path.join(self.pg, "data"), "-m", "fast", "-w", "stop"],
                                "postgresql-stop", user="postgres"):
                left.append(f"postgresql({self.pg})")
            else:
                shutil.rmtree(self.pg, ignore_errors=True)
        try:
            os.unlink(os.path.join(self.state, "worker-token"))
        except FileNotFoundError:
            pass
        if left:
            self.record(f"check lava-lab-stop-{self.name}: FAIL (still running: {' '.join(left)})")
        else:
            self.ok("stop", "every service this run started has stopped")


def inputs(lab, t, name, rdir, ldir, out):
    """make lava's job inputs (kernel, ramdisk, device dictionary, job), made once if missing;
    the job as the server takes it into @out/job.yaml"""
    def have(*paths):
        return all(os.path.isfile(p) and os.path.getsize(p) > 0 for p in paths)
    job = os.path.join(ldir, "job.yaml")
    need = (job, os.path.join(ldir, "device.jinja2"), os.path.join(ldir, "kernel"),
            os.path.join(ldir, "ramdisk.cpio.gz"), os.path.join(rdir, "report.json"))
    if not have(*need):
        say("lava-lab", name, f"no make lava inputs in results/lava/{name}: make lava TARGET={t} first")
        to_log(tool("lava", t), os.path.join(TOP, "results", f"lava-{name}.log"), env=tool_env())
        if not have(*need):
            lab.fail("inputs", f"make lava TARGET={t} made no job: see results/lava-{name}.log")
    err = os.path.join(out, "job.err")
    with open(os.path.join(out, "job.yaml"), "w") as f, open(err, "w") as e:
        if subprocess.run(tool("lava-server-job", job), stdout=f, stderr=e, env=tool_env()).returncode:
            lab.fail("inputs", f"hptool lava-server-job: {why(err)}")


def postgresql(lab):
    """a cluster of its own, Unix socket only (no TCP), peer authentication; its superuser
    is "root", the user the LAVA services run as here"""
    say("lava-lab", lab.name, "PostgreSQL: a throwaway cluster (initdb, pg_ctl)")
    lab.pg = tempfile.mkdtemp(prefix="hardprobe-lava-lab-pg.", dir="/tmp")
    shutil.chown(lab.pg, "postgres", "postgres")
    os.chmod(lab.pg, 0o700)
    data = os.path.join(lab.pg, "data")
    if lab.logged([f"{PGBIN}/initdb", "-D", data, "-U", "root", "-A", "peer", "-E", "UTF-8", "--locale=C.UTF-8"],
                  "initdb", user="postgres"):
        lab.fail("postgresql", f"initdb: {why(lab.log('initdb.log'))}")
    if lab.logged([f"{PGBIN}/pg_ctl", "-D", data, "-l", os.path.join(lab.pg, "postgresql.log"), "-w", "-t", "60",
                   "-o", f"-c listen_addresses='' -c unix_socket_directories='{lab.pg}' -p 5432", "start"],
                  "pg_ctl", user="postgres"):
        lab.fail("postgresql", f"pg_ctl start: {why(os.path.join(lab.pg, 'postgresql.log'))}")
    if lab.logged([f"{PGBIN}/psql", "-h", lab.pg, "-d", "postgres", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                   "CREATE DATABASE lavaserver ENCODING 'UTF-8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' "
                   "TEMPLATE template0"], "createdb"):
        lab.fail("postgresql", f"CREATE DATABASE: {why(lab.log('createdb.log'))}")
    version = subprocess.run([f"{PGBIN}/postgres", "--version"], stdout=subprocess.PIPE, text=True).stdout.split()
    lab.ok("postgresql", f"PostgreSQL {version[2] if len(version) > 2 else '?'}, socket {lab.pg}")


def server_env(lab):
    """lava-server's settings from the environment (lava_server/settings/prod.py reads
    LAVA_SETTINGS_* and LAVA_YAML_SETTINGS_* last): the database above, the state here"""
    s = lab.state
    os.environ.update({
        "LAVA_YAML_SETTINGS_DATABASES": "{default: {ENGINE: django.db.backends.postgresql, NAME: lavaserver, "
                                        f"USER: root, PASSWORD: '', HOST: '{lab.pg}', PORT: 5432}}}}",
        "LAVA_SETTINGS_MEDIA_ROOT": os.path.join(s, "media") + "/",
        "LAVA_SETTINGS_DEVICES_PATH": os.path.join(s, "devices"),
        "LAVA_SETTINGS_HEALTH_CHECKS_PATH": os.path.join(s, "health-checks"),
        "LAVA_SETTINGS_DISPATCHER_CONFIG_PATH": os.path.join(s, "dispatcher.d"),
        "LAVA_SETTINGS_DJANGO_LOGFILE": os.path.join(s, "log", "django.log"),
        "SECRET_KEY": re.sub(r"[/+=]", "", base64.b64encode(os.urandom(36)).decode()),
    })


def server(lab):
    """the database's tables, an admin and its token, the worker's record; then gunicorn
    and lava-scheduler, each in a session of its own"""
    say("lava-lab", lab.name, "lava-server: database migrations, admin user and token, worker hp-lab")
    if lab.logged(["lava-server", "manage", "migrate", "--noinput"], "migrate"):
        lab.fail("server", f"lava-server manage migrate: {why(lab.log('migrate.log'))}")
    if lab.logged(["lava-server", "manage", "users", "add", "admin", "--superuser", "--staff", "--passwd",
                   base64.b64encode(os.urandom(18)).decode()], "users"):
        lab.fail("server", f"lava-server manage users add: {why(lab.log('users.log'))}")
    with open(lab.log("tokens.log"), "w") as e:
        p = subprocess.run(["lava-server", "manage", "tokens", "add", "--user", "admin"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=e, text=True, errors="replace")
    lab.token = (p.stdout.strip().splitlines() or [""])[-1].strip()
    if p.returncode or not lab.token:
        lab.fail("server", f"lava-server manage tokens add: {why(lab.log('tokens.log'))}")
    if lab.logged(["lava-server", "manage", "workers", "add", WORKER], "workers"):
        lab.fail("server", f"lava-server manage workers add: {why(lab.log('workers.log'))}")
    token = re.findall(r"^Token: (.*)$", read_text(lab.log("workers.log")), re.M)
    os.unlink(lab.log("workers.log"))
    if not token:
        lab.fail("server", "lava-server manage workers add printed no token")
    fd = os.open(os.path.join(lab.state, "worker-token"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token[0] + "\n")

    port = free_port()
    lab.host = f"127.0.0.1:{port}"
    say("lava-lab", lab.name, f"gunicorn (lava_server.wsgi) on {lab.url}, lava-scheduler")
    guni = lab.start(["gunicorn3", "lava_server.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2",
                      "--worker-class", "eventlet", "--timeout", "60", "--log-level", "INFO",
                      "--log-file", lab.log("gunicorn.log")], "gunicorn", cwd=lab.state)
    sched = lab.start(["lava-server", "manage", "lava-scheduler", "-u", "root", "-g", "root", "--level", "INFO",
                       "--log-file", lab.log("lava-scheduler.log")], "lava-scheduler")
    up = False
    for _ in range(60):
        if lab.lava("system", "version")[0] == 0:
            up = True
            break
        if guni.poll() is not None:
            break
        time.sleep(1)
    if not up:
        lab.fail("server", f"gunicorn: no answer on {lab.url}/RPC2 in 60 s: {why(lab.log('gunicorn.log'))}")
    time.sleep(2)
    if sched.poll() is not None:
        lab.fail("server", f"lava-scheduler exited: {why(lab.log('lava-scheduler.log'))} "
                 f"{why(lab.log('lava-scheduler.out'))}")
    lab.ok("server", f"lava-server {lab.lava('system', 'version')[1].strip()}, gunicorn and lava-scheduler up")


def device(lab, ldir, out):
    """the device type, the device with make lava's dictionary, the worker (Online)"""
    with open(lab.log("lavacli.log"), "w") as e:
        for args in (("device-types", "add", "qemu"),
                     ("devices", "add", "--type", "qemu", "--worker", WORKER, DEVICE),
                     ("devices", "dict", "set", DEVICE, os.path.join(ldir, "device.jinja2"))):
            if lab.lava(*args, out=e)[0]:
                e.close()
                lab.fail("device", f"lavacli: {why(lab.log('lavacli.log'))}")
    with open(lab.log("render.log"), "w") as e:
        rc, text = lab.lava("devices", "dict", "get", "--render", DEVICE, out=e)
    dev = os.path.join(out, "device.yaml")
    with open(dev, "w") as f:
        f.write(text)
    if rc:
        lab.fail("device", f"the server cannot render the device dictionary: {why(lab.log('render.log'))}")
    if "qemu-system-" not in text:
        lab.fail("device", f"the rendered device has no QEMU command ({dev})")
    worker = lab.start(["lava-worker", "--name", WORKER, "--url", lab.url + "/", "--token-file",
                        os.path.join(lab.state, "worker-token"), "--worker-dir", os.path.join(lab.state, "worker"),
                        "--log-file", lab.log("lava-worker.log"), "--level", "INFO"], "lava-worker")
    state = ""
    for _ in range(60):
        state = job_field(lab.lava("workers", "show", WORKER)[1], "state")
        if state == "Online" or worker.poll() is not None:
            break
        time.sleep(1)
    if state != "Online":
        lab.fail("worker", f"lava-worker {WORKER} is {state or 'unknown'} after 60 s: "
                 f"{why(lab.log('lava-worker.log'))}")
    lab.ok("device", f"device type qemu, {DEVICE} with results/lava/{lab.name}/device.jinja2, "
           f"worker {WORKER} Online")
    return worker


def run_job(lab, worker, out, minutes):
    """the job: submitted with lavacli, followed until it ends; (its id, its seconds)"""
    with open(os.path.join(out, "submit.err"), "w") as e:
        rc, job = lab.lava("jobs", "submit", os.path.join(out, "job.yaml"), out=e)
    job = job.strip()
    if rc or not re.match(r"^[0-9]+$", job):
        lab.fail("submit", f"lavacli jobs submit: {why(os.path.join(out, 'submit.err'))} {job}")
    boots = len(re.findall(r"^- boot:", read_text(os.path.join(out, "job.yaml")), re.M))
    lab.ok("submit", f"job {job}, {boots} boots")
    say("lava-lab", lab.name, f"job {job} submitted; QEMU TCG: the module and its runner, then each panicking probe")
    t1, limit, last, shown = time.time(), minutes * 60, None, 0
    show = os.path.join(out, "job-show.txt")
    while True:
        text = lab.lava("jobs", "show", job)[1]
        with open(show, "w") as f:
            f.write(text)
        state, health = job_field(text, "state"), job_field(text, "Health")
        el = int(time.time() - t1)
        if state != last or el - shown >= 30:
            say("lava-lab", lab.name, f"job {job}: {state or '?'} ({health}) after {el} s")
            last, shown = state, el
        if state == "Finished" or el >= limit:
            break
        if worker.poll() is not None:
            lab.fail("job", f"lava-worker exited during job {job}: {why(lab.log('lava-worker.log'))}")
        time.sleep(5)
    with open(os.path.join(out, "job.log"), "w") as f:
        f.write(lab.lava("jobs", "logs", "--raw", job)[1])
    if state != "Finished":
        lab.lava("jobs", "cancel", job)
        lab.fail("job", f"job {job} still {state or 'unknown'} after {minutes} min (LAB_MINUTES)")
    el = int(time.time() - t1)
    if health == "Complete":
        lab.ok("job", f"job {job} Complete in {el} s")
    else:
        failure = re.search(r"^failure[^:]*: (.*)$", text, re.M)
        lab.record(f"check lava-lab-job-{lab.name}: FAIL (job {job} {health}: "
                   f"{failure.group(1)[:200] if failure else ''})")
    return job, el


def results(lab, job, out, report):
    """the results through the API, beside report.json's outcomes"""
    res = os.path.join(out, "results.yaml")
    with open(res, "w") as f, open(os.path.join(out, "results.err"), "w") as e:
        rc, text = lab.lava("results", "--yaml", job, out=e)
        f.write(text)
    if rc:
        lab.fail("results", f"lavacli results: {why(os.path.join(out, 'results.err'))}")
    compared(lab.record, res, report, os.path.join(out, "compare.txt"), f"lava-lab-results-{lab.name}", server=True)


def lab_run(lab, t, rdir, ldir, out, minutes):
    name = lab.name
    say("lava-lab", name, "packages: lava-dispatcher, lavacli, lava-server (hptool deps --lava --lava-server)")
    if lab.logged(tool("deps", "--lava", "--lava-server"), "deps", env=tool_env()):
        lab.fail("install", f"hptool deps --lava --lava-server: {why(lab.log('deps.log'))}")
    for c in ("gunicorn3", "lava-server", "lava-worker", "lavacli", f"{PGBIN}/initdb", f"{PGBIN}/pg_ctl",
              f"{PGBIN}/psql"):
        if not shutil.which(c):
            lab.fail("install", f"{c} is missing after the install")
    ver = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "lava-server"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout.strip()
    pgv = subprocess.run([f"{PGBIN}/pg_ctl", "--version"], stdout=subprocess.PIPE, text=True).stdout.split()
    lab.ok("install", f"lava-server {ver}, PostgreSQL {pgv[2] if len(pgv) > 2 else '?'}")

    inputs(lab, t, name, rdir, ldir, out)
    t0 = time.time()
    postgresql(lab)
    server_env(lab)
    server(lab)
    worker = device(lab, ldir, out)
    up = int(time.time() - t0)
    say("lava-lab", name, f"lab up in {up} s")
    job, el = run_job(lab, worker, out, minutes)
    results(lab, job, out, os.path.join(rdir, "report.json"))
    lab.record(f"lava-lab: job {job} in {el} s (lab up in {up} s); server results "
               f"{os.path.join(out, 'results.yaml')}")


def cli(argv):
    ap = argparse.ArgumentParser(prog="hptool lava-lab", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("target", nargs="?", default="x86_64-gcc")
    ap.add_argument("--minutes", type=int, default=None, help="the job's limit (env LAB_MINUTES, 30)")
    a = ap.parse_args(argv)
    minutes = a.minutes
    if minutes is None:
        try:
            minutes = int(os.environ.get("LAB_MINUTES") or 30)
        except ValueError:
            raise Error(f"LAB_MINUTES={os.environ['LAB_MINUTES']!r}: not a number of minutes") from None
    if minutes < 1:
        raise Error(f"the job's limit must be a minute or more, not {minutes}")
    if os.getuid() != 0:
        raise Error("make lava-lab runs as root only (apt-get, PostgreSQL's own user, lava-run)")
    t, name = a.target, targets.result_name(a.target)
    rdir, ldir = os.path.join(TOP, "results", name), os.path.join(TOP, "results", "lava", name)
    out, state = os.path.join(TOP, "results", "lava-lab", name), os.path.join(CACHE, "lava-lab")
    for d in (out, state):
        shutil.rmtree(d, ignore_errors=True)
    for d in ("log", "media", "devices", "health-checks", "dispatcher.d", "worker"):
        os.makedirs(os.path.join(state, d))
    os.makedirs(out)
    record = Log(os.path.join(out, "check.log"))
    lab = Lab(name, state, record)

    def interrupted(signum, frame):
        raise Interrupted()
    old = {s: signal.signal(s, interrupted) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        lab_run(lab, t, rdir, ldir, out, minutes)
    except Failed:
        pass
    except (Error, OSError) as e:
        record(f"check lava-lab-run-{name}: FAIL ({e})")
    except Interrupted:
        # an interrupted lab is a failed one: its tally must not read as a clean run
        record(f"check lava-lab-run-{name}: FAIL (interrupted)")
    finally:
        for s in old:
            signal.signal(s, signal.SIG_IGN)
        lab.stop()
        for s, h in old.items():
            signal.signal(s, h)
        say("lava-lab", name, f"services stopped; state in {state}, outputs in {out}")
    sys.stdout.flush()
    return subprocess.run(tool("tally", record.path), env=tool_env()).returncode
