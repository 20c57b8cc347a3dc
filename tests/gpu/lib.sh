# Shell functions of the GPU scripts (device-perf.sh, device-attach.sh); sourced.

# until_word FILE WORD [SECONDS]: waits (at most SECONDS, 30 by default)
# for WORD in FILE.
until_word() {
	for _ in $(seq $((${3:-30} * 50))); do
		grep -q "$2" "$1" 2> /dev/null && return 0
		sleep 0.02
	done
	return 1
}

# cuda_program OUT SOURCE [PREBUILT]: builds SOURCE into OUT with nvcc, or
# copies PREBUILT there (to try a script on a machine without a GPU).
cuda_program() {
	if [ -n "${3:-}" ]; then
		cp "$3" "$1"
	else
		nvcc -O2 -o "$1" "$2"
	fi
}
