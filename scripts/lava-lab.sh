#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hardprobe make lava-lab: a LAVA lab on this one machine. Debian's lava-server (gunicorn,
# lava-scheduler) on a throwaway PostgreSQL cluster, a lava-worker pointed at it, the qemu
# device type and one device with make lava's device dictionary; make lava's job submitted
# with lavacli, its results read back through the server's XML-RPC API (lavacli results)
# and compared with report.json as make lava does. No systemd: each service is started
# here by its own command and stopped at the end (and on any failure). Ends with
# "N passed, N failed".
# usage: lava-lab.sh [TARGET]   (default x86_64-gcc; env LAB_MINUTES: the job's limit, 30)
# State: the LAVA side (job outputs, device dictionary, worker, logs) in
# ~/.cache/hardprobe/lava-lab, emptied at each start; the PostgreSQL cluster in a
# /tmp/hardprobe-lava-lab-pg.* directory removed at the end (PostgreSQL runs as the
# postgres user, which cannot enter root's home). Outputs: results/lava-lab/<target>/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t=${1:-x86_64-gcc}
[ "$(id -u)" = 0 ] || hp_die "make lava-lab runs as root only (apt-get, PostgreSQL's own user, lava-run)"
name=$(hp_tool result-name "$t") || exit 1
R=$HP_TOP/results/$name
L=$HP_TOP/results/lava/$name
O=$HP_TOP/results/lava-lab/$name
S=$HP_CACHE/lava-lab
PGBIN=/usr/lib/postgresql/15/bin
rm -rf "$O" "$S"
mkdir -p "$O" "$S/log" "$S/media" "$S/devices" "$S/health-checks" "$S/dispatcher.d" "$S/worker"
LOG=$O/check.log
: >"$LOG"
check() { echo "check lava-lab-$1-$name: $2" | tee -a "$LOG"; }

PG='' pids=()
# stop what this run started, newest first: each service leads its own process group
# (setsid), which holds its children too (the worker's lava-run and QEMU)
stop_all() {
	local i p left=''
	trap - EXIT INT TERM
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		p=${pids[i]}
		kill -0 -- "-$p" 2>/dev/null || continue
		kill -TERM -- "-$p" 2>/dev/null
		for _ in $(seq 20); do
			kill -0 -- "-$p" 2>/dev/null || break
			sleep 0.5
		done
		if kill -0 -- "-$p" 2>/dev/null; then
			kill -KILL -- "-$p" 2>/dev/null
			sleep 1
			kill -0 -- "-$p" 2>/dev/null && left+=" $p"
		fi
	done
	if [ -n "$PG" ]; then
		if [ -f "$PG/data/postmaster.pid" ]; then
			runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG/data" -m fast -w stop >>"$S/log/postgresql-stop.log" 2>&1 ||
				left+=" postgresql($PG)"
		fi
		[[ "$left" == *postgresql* ]] || rm -rf "$PG"
	fi
	rm -f "$S/worker-token"
	if [ -n "$left" ]; then
		check stop "FAIL (still running:$left)"
	else
		check stop "ok (every service this run started has stopped)"
	fi
	hp_say lava-lab "$name" "services stopped; state in $S, outputs in $O"
	hp_tool tally "$LOG"
	exit
}
trap stop_all EXIT
# an interrupted lab is a failed one: its tally must not read as a clean run
trap 'check run "FAIL (interrupted)"; exit 130' INT TERM
# fail STEP REASON: the step's failure, then the end (stop_all)
fail() { check "$1" "FAIL ($2)"; exit 1; }
# why a command failed: its log's last non-empty line
why() { grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 | cut -c1-300; }

# 1. packages: lava-server (Django, gunicorn; PostgreSQL itself is Debian 12's 15)
hp_say lava-lab "$name" "packages: lava-dispatcher, lavacli, lava-server (hptool deps --lava --lava-server)"
hp_tool deps --lava --lava-server >"$S/log/deps.log" 2>&1 ||
	fail install "hptool deps --lava --lava-server: $(why "$S/log/deps.log")"
for c in gunicorn3 lava-server lava-worker lavacli "$PGBIN/initdb" "$PGBIN/pg_ctl" "$PGBIN/psql"; do
	command -v "$c" >/dev/null || fail install "$c is missing after the install"
done
check install "ok (lava-server $(dpkg-query -W -f '${Version}' lava-server), PostgreSQL $("$PGBIN/pg_ctl" --version | awk '{print $3}'))"

# 2. make lava's job inputs (kernel, ramdisk, device dictionary, job), made once if missing
if [ ! -s "$L/job.yaml" ] || [ ! -s "$L/device.jinja2" ] || [ ! -s "$L/kernel" ] ||
	[ ! -s "$L/ramdisk.cpio.gz" ] || [ ! -s "$R/report.json" ]; then
	hp_say lava-lab "$name" "no make lava inputs in results/lava/$name: make lava TARGET=$t first"
	hp_tool lava "$t" >"$HP_TOP/results/lava-$name.log" 2>&1
	if [ ! -s "$L/job.yaml" ] || [ ! -s "$L/device.jinja2" ] || [ ! -s "$R/report.json" ]; then
		fail inputs "make lava TARGET=$t made no job: see results/lava-$name.log"
	fi
fi
hp_tool lava-server-job "$L/job.yaml" >"$O/job.yaml" 2>"$O/job.err" ||
	fail inputs "hptool lava-server-job: $(why "$O/job.err")"

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
T0=$(date +%s)

# 3. PostgreSQL: a cluster of its own, Unix socket only (no TCP), peer authentication;
# its superuser is "root", the user the LAVA services run as here
hp_say lava-lab "$name" "PostgreSQL: a throwaway cluster (initdb, pg_ctl)"
PG=$(mktemp -d /tmp/hardprobe-lava-lab-pg.XXXXXX) || fail postgresql "mktemp: no directory in /tmp"
chown postgres:postgres "$PG" && chmod 700 "$PG"
runuser -u postgres -- "$PGBIN/initdb" -D "$PG/data" -U root -A peer -E UTF-8 --locale=C.UTF-8 \
	>"$S/log/initdb.log" 2>&1 || fail postgresql "initdb: $(why "$S/log/initdb.log")"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG/data" -l "$PG/postgresql.log" -w -t 60 \
	-o "-c listen_addresses='' -c unix_socket_directories='$PG' -p 5432" start >"$S/log/pg_ctl.log" 2>&1 ||
	fail postgresql "pg_ctl start: $(why "$PG/postgresql.log")"
"$PGBIN/psql" -h "$PG" -d postgres -q -v ON_ERROR_STOP=1 \
	-c "CREATE DATABASE lavaserver ENCODING 'UTF-8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' TEMPLATE template0" \
	>"$S/log/createdb.log" 2>&1 || fail postgresql "CREATE DATABASE: $(why "$S/log/createdb.log")"
check postgresql "ok (PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}'), socket $PG)"

# 4. lava-server's settings from the environment (lava_server/settings/prod.py reads
# LAVA_SETTINGS_* and LAVA_YAML_SETTINGS_* last): the database above, the state here
export LAVA_YAML_SETTINGS_DATABASES="{default: {ENGINE: django.db.backends.postgresql, NAME: lavaserver, USER: root, PASSWORD: '', HOST: '$PG', PORT: 5432}}"
export LAVA_SETTINGS_MEDIA_ROOT=$S/media/ LAVA_SETTINGS_DEVICES_PATH=$S/devices \
	LAVA_SETTINGS_HEALTH_CHECKS_PATH=$S/health-checks LAVA_SETTINGS_DISPATCHER_CONFIG_PATH=$S/dispatcher.d \
	LAVA_SETTINGS_DJANGO_LOGFILE=$S/log/django.log
SECRET_KEY=$(head -c 36 /dev/urandom | base64 | tr -d '/+=')
export SECRET_KEY
hp_say lava-lab "$name" "lava-server: database migrations, admin user and token, worker hp-lab"
lava-server manage migrate --noinput >"$S/log/migrate.log" 2>&1 ||
	fail server "lava-server manage migrate: $(why "$S/log/migrate.log")"
lava-server manage users add admin --superuser --staff --passwd "$(head -c 18 /dev/urandom | base64)" \
	>"$S/log/users.log" 2>&1 || fail server "lava-server manage users add: $(why "$S/log/users.log")"
token=$(lava-server manage tokens add --user admin 2>"$S/log/tokens.log" | tail -n 1)
[ -n "$token" ] || fail server "lava-server manage tokens add: $(why "$S/log/tokens.log")"
lava-server manage workers add hp-lab >"$S/log/workers.log" 2>&1 ||
	fail server "lava-server manage workers add: $(why "$S/log/workers.log")"
(umask 077 && sed -n 's/^Token: //p' "$S/log/workers.log" >"$S/worker-token")
[ -s "$S/worker-token" ] || fail server "lava-server manage workers add printed no token"
rm -f "$S/log/workers.log"

# 5. the services, each in a session of its own (setsid: one process group to stop)
port=$(free_port) || fail server "no free TCP port on 127.0.0.1"
URL=http://127.0.0.1:$port
hp_say lava-lab "$name" "gunicorn (lava_server.wsgi) on $URL, lava-scheduler"
(cd "$S" && exec setsid gunicorn3 lava_server.wsgi --bind "127.0.0.1:$port" --workers 2 \
	--worker-class eventlet --timeout 60 --log-level INFO --log-file "$S/log/gunicorn.log" \
	</dev/null >"$S/log/gunicorn.out" 2>&1) &
pids+=($!)
setsid lava-server manage lava-scheduler -u root -g root --level INFO \
	--log-file "$S/log/lava-scheduler.log" </dev/null >"$S/log/lava-scheduler.out" 2>&1 &
pids+=($!)
lava() { lavacli --uri "http://admin:$token@127.0.0.1:$port/RPC2" "$@"; }
up=no
for _ in $(seq 60); do
	lava system version >/dev/null 2>&1 && { up=yes; break; }
	kill -0 "${pids[0]}" 2>/dev/null || break
	sleep 1
done
[ $up = yes ] || fail server "gunicorn: no answer on $URL/RPC2 in 60 s: $(why "$S/log/gunicorn.log")"
sleep 2
kill -0 "${pids[1]}" 2>/dev/null ||
	fail server "lava-scheduler exited: $(why "$S/log/lava-scheduler.log") $(why "$S/log/lava-scheduler.out")"
check server "ok (lava-server $(lava system version 2>/dev/null), gunicorn and lava-scheduler up)"

# 6. the device type, the device with make lava's dictionary, the worker
if ! { lava device-types add qemu && lava devices add --type qemu --worker hp-lab hp-qemu-01 &&
	lava devices dict set hp-qemu-01 "$L/device.jinja2"; } >"$S/log/lavacli.log" 2>&1; then
	fail device "lavacli: $(why "$S/log/lavacli.log")"
fi
lava devices dict get --render hp-qemu-01 >"$O/device.yaml" 2>"$S/log/render.log" ||
	fail device "the server cannot render the device dictionary: $(why "$S/log/render.log")"
grep -q "qemu-system-" "$O/device.yaml" || fail device "the rendered device has no QEMU command ($O/device.yaml)"
setsid lava-worker --name hp-lab --url "$URL/" --token-file "$S/worker-token" --worker-dir "$S/worker" \
	--log-file "$S/log/lava-worker.log" --level INFO </dev/null >"$S/log/lava-worker.out" 2>&1 &
pids+=($!)
state=''
for _ in $(seq 60); do
	state=$(lava workers show hp-lab 2>/dev/null | sed -n 's/^state *: //p')
	[ "$state" = Online ] && break
	kill -0 "${pids[2]}" 2>/dev/null || break
	sleep 1
done
[ "$state" = Online ] ||
	fail worker "lava-worker hp-lab is ${state:-unknown} after 60 s: $(why "$S/log/lava-worker.log")"
check device "ok (device type qemu, hp-qemu-01 with results/lava/$name/device.jinja2, worker hp-lab Online)"
hp_say lava-lab "$name" "lab up in $(( $(date +%s) - T0 )) s"

# 7. the job: submitted with lavacli, followed until it ends
job=$(lava jobs submit "$O/job.yaml" 2>"$O/submit.err")
[[ "$job" =~ ^[0-9]+$ ]] || fail submit "lavacli jobs submit: $(why "$O/submit.err") $job"
check submit "ok (job $job, $(grep -c '^- boot:' "$O/job.yaml") boots)"
hp_say lava-lab "$name" "job $job submitted; QEMU TCG: the module and its runner, then each panicking probe"
t1=$(date +%s) limit=$(( ${LAB_MINUTES:-30} * 60 )) last='' state='' health='' shown=0
while :; do
	lava jobs show "$job" >"$O/job-show.txt" 2>&1
	state=$(sed -n 's/^state *: //p' "$O/job-show.txt")
	health=$(sed -n 's/^Health *: //p' "$O/job-show.txt")
	el=$(( $(date +%s) - t1 ))
	if [ "$state" != "$last" ] || [ $(( el - shown )) -ge 30 ]; then
		hp_say lava-lab "$name" "job $job: ${state:-?} ($health) after $el s"
		last=$state shown=$el
	fi
	[ "$state" = Finished ] && break
	[ $el -lt $limit ] || break
	kill -0 "${pids[2]}" 2>/dev/null || fail job "lava-worker exited during job $job: $(why "$S/log/lava-worker.log")"
	sleep 5
done
lava jobs logs --raw "$job" >"$O/job.log" 2>/dev/null
if [ "$state" != Finished ]; then
	lava jobs cancel "$job" >/dev/null 2>&1
	fail job "job $job still ${state:-unknown} after ${LAB_MINUTES:-30} min (LAB_MINUTES)"
fi
jel=$(( $(date +%s) - t1 ))
if [ "$health" = Complete ]; then
	check job "ok (job $job Complete in $jel s)"
else
	check job "FAIL (job $job $health: $(sed -n '/^failure/{s/^failure[^:]*: //p;q;}' "$O/job-show.txt" | cut -c1-200))"
fi

# 8. the results through the API, beside report.json's outcomes
lava results --yaml "$job" >"$O/results.yaml" 2>"$O/results.err" ||
	fail results "lavacli results: $(why "$O/results.err")"
hp_tool lava-compare "$O/results.yaml" "$R/report.json" --server >"$O/compare.txt" 2>&1
grep -v '^check ' "$O/compare.txt"
sed -n 's/^check lava-results:/check lava-lab-results-'"$name"':/p' "$O/compare.txt" | tee -a "$LOG"
grep -q '^check ' "$O/compare.txt" || check results "FAIL ($(why "$O/compare.txt"))"
echo "lava-lab: job $job in $jel s (lab up in $(( t1 - T0 )) s); server results $O/results.yaml" | tee -a "$LOG"
