#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with the
# static cudatrace in .devcarry/cudatrace-static.  Checks the claim behind
# views/compat/tables/known_callers.tsv (issue 33, item 14): NVML carries on
# when AMPERE_SMC_CONFIG_SESSION / AMPERE_SMC_MONITOR_SESSION are refused.
# On the host the driver refuses them to clients without the MIG
# capabilities or admin rights (mig_config_session.c, mig_monitor_session.c):
# so the same programs run as root (allowed) and as nobody (refused), under
# -k, and each must finish with its output while, as nobody, both
# allocations failed.  Output: $OUT/nvml-*.ctrace, *.out, *.compat.txt.
# PASS lines: "PASS <prog> as nobody: no MIG config session (...), exit 0".
# Measured 2026-11-27 (H200): as nobody NVML does not ask for the config
# session (nvidia-cap1 is root's) and runs on; the monitor session is given
# to all (nvidia-cap2 is readable by all), so its refusal is not seen.
set -u
CT=$(pwd)/.devcarry/cudatrace-static
O=${OUT:-/tmp/out}
AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp"
cp tests/gpu/torch_matmul.py tests/gpu/jax_sum.py /tmp/ && chmod 644 /tmp/torch_matmul.py /tmp/jax_sum.py
run() {   # name, user (root|nobody), command...
	local name=$1 who=$2; shift 2
	local pre=""
	[ "$who" = nobody ] && pre=$AS_NOBODY
	"$CT" -k -w "$O/nvml-$name-$who.ctrace" -- $pre "$@" > "$O/nvml-$name-$who.out" 2>&1
	local rc=$?
	"$CT" -r "$O/nvml-$name-$who.ctrace" --compat=gvisor > "$O/nvml-$name-$who.compat.txt" 2>&1
	local smc
	smc=$("$CT" -r "$O/nvml-$name-$who.ctrace" -e 'class=AMPERE_SMC*' 2>/dev/null |
	      grep -o 'hClass=0xc6[34][09][^,]*\|status=[A-Z_]*' | paste -sd' ')
	echo "== $name as $who: exit $rc; SMC allocations: ${smc:-none}"
	tail -2 "$O/nvml-$name-$who.out" | sed 's/^/   /'
	if [ "$who" = nobody ]; then
		# the config session: refused, or not asked for (NVML checks the
		# capability first); either way the program must run on
		if [ $rc = 0 ] && ! echo "$smc" | grep -q 'c639[^ ]* status=NV_OK'; then
			echo "PASS $name as nobody: no MIG config session (${smc:-none}), exit 0"
		else
			echo "FAIL $name as nobody: exit $rc, SMC: ${smc:-none} (see $O/nvml-$name-$who.out)"
		fi
		echo "$smc" | grep -q 'c640[^ ]* status=NV_ERR' ||
			echo "INFO $name as nobody: the MIG monitor session was not refused (its effect stays unknown)"
	fi
}
{ date -u; cat /proc/driver/nvidia/version; nvidia-smi -L; ls -la /dev/nvidia*; ls -la /dev/nvidia-caps 2>&1; } > "$O/nvml-env.txt" 2>&1
for who in root nobody; do
	run smi "$who" nvidia-smi -L
	run torch "$who" python3 /tmp/torch_matmul.py
	python3 -c 'import jax' 2>/dev/null && run jax "$who" python3 /tmp/jax_sum.py
done
ls -la "$O"
