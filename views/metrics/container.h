/* SPDX-License-Identifier: MIT */
/*
 * Which container a process runs in, from its cgroup v2 path
 * (/proc/PID/cgroup, the "0::" line): a docker, containerd (cri-containerd)
 * or CRI-O container id, and under Kubernetes the pod's uid.
 */
#ifndef CT_CONTAINER_H
#define CT_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

struct ct_container {
	char id[65];     /* 64 hex digits, "" if not in a container we know */
	char pod[37];    /* Kubernetes pod uid, 8-4-4-4-12, "" if none */
};

/* From a cgroup path such as
 *   /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice/
 *     cri-containerd-<id>.scope
 *   /system.slice/docker-<id>.scope     /docker/<id>     /crio-<id>.scope
 *   /kubepods/besteffort/pod<uid>/<id>   (cgroupfs driver) */
void ct_container_from_path(const char *path, struct ct_container *out);

/* Reads proc_root/PID/cgroup; out is empty if it cannot (gone, v1 only). */
void ct_container_of_pid(const char *proc_root, uint32_t pid, struct ct_container *out);

#endif
