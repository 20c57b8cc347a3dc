/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the generated value->name tables (decoders/tables/nvtables.h).
 * Prints TAP ("ok N - ...", "not ok N - ..."); exits 1 on any failure.
 *
 * Run it from the repository root: besides fixed facts taken from
 * shared/nvabi (driver tag 580.142), it reads the TSV files in decoders/tables/ and checks
 * that every row survived generation (counts, names, structs, sizes).
 *
 *   (generate build/nvtables_data.c as decoders/tables/tables.mk does, then)
 *   cc -Wall -Wextra -O2 -Idecoders -Itests/lib decoders/tables/nvtables.c build/nvtables_data.c \
 *      tests/unit/test_tables.c -o build/test_tables
 *   ./build/test_tables
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "nvfacts.h"
#include "nvtables.h"

#define TABLES_DIR "decoders/tables/"


/* ---- a minimal reader of our TSV files -------------------------------- */

struct row {
	uint32_t key;
	char *f[3];             /* the columns after the key */
	uint32_t num;           /* last column as a number, where it is one */
};

struct tsv {
	const char *name;
	size_t n;
	struct row *rows;
	char tag[64];
};

static char *xstrdup(const char *s)
{
	char *d = malloc(strlen(s) + 1);

	if (!d) {
		perror("malloc");
		exit(2);
	}
	return strcpy(d, s);
}

/* Load decoders/tables/<name>; ncols counts the key too.  Exits on I/O or
 * format errors: then the test cannot say anything useful. */
static void tsv_load(struct tsv *t, const char *name, int ncols)
{
	char path[256], line[4096];
	size_t cap = 0;
	FILE *fp;

	memset(t, 0, sizeof(*t));
	t->name = name;
	snprintf(path, sizeof(path), TABLES_DIR "%s", name);
	fp = fopen(path, "r");
	if (!fp) {
		perror(path);
		fprintf(stderr, "(run from the repository root)\n");
		exit(2);
	}
	while (fgets(line, sizeof(line), fp)) {
		char *p = line, *end, *col[4];
		struct row *r;
		int n = 0;

		if (!strchr(line, '\n')) {
			fprintf(stderr, "%s: line too long\n", path);
			exit(2);
		}
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#') {
			if (!strncmp(line, "#Tag ", 5))
				snprintf(t->tag, sizeof(t->tag), "%.*s", (int)sizeof(t->tag) - 1, line + 5);
			continue;
		}
		for (;;) {
			if (n == 4)
				break;
			col[n++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (n != ncols || p) {
			fprintf(stderr, "%s: row %zu: want %d columns\n", path, t->n + 1, ncols);
			exit(2);
		}
		if (t->n == cap) {
			cap = cap ? 2 * cap : 256;
			t->rows = realloc(t->rows, cap * sizeof(*t->rows));
			if (!t->rows) {
				perror("realloc");
				exit(2);
			}
		}
		r = &t->rows[t->n++];
		memset(r, 0, sizeof(*r));
		r->key = (uint32_t)strtoul(col[0], &end, 16);
		if (*end) {
			fprintf(stderr, "%s: bad key %s\n", path, col[0]);
			exit(2);
		}
		for (int i = 1; i < n; i++)
			r->f[i - 1] = xstrdup(col[i]);
		r->num = (uint32_t)strtoul(col[n - 1], NULL, 10);
	}
	fclose(fp);
}

static void tsv_free(struct tsv *t)
{
	for (size_t i = 0; i < t->n; i++)
		for (int j = 0; j < 3; j++)
			free(t->rows[i].f[j]);
	free(t->rows);
}

static int tsv_has(const struct tsv *t, uint32_t key)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].key == key)
			return 1;
	return 0;
}

/* '-' in a TSV is NULL in C. */
static int same_str(const char *tsv, const char *c)
{
	if (!strcmp(tsv, "-"))
		return c == NULL;
	return c && !strcmp(tsv, c);
}

/* Report the first few mismatches of a round-trip as TAP comments. */
static int mismatch(const struct tsv *t, const struct row *r, int bad)
{
	if (bad < 5)
		printf("# %s: row 0x%08x %s does not round-trip\n", t->name, (unsigned)r->key, r->f[0]);
	return bad + 1;
}

/* ---- checks ------------------------------------------------------------- */

static void check_esc(const struct tsv *t)
{
	const struct nv_esc_info *e;
	int bad = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		e = nv_esc_lookup(r->key);
		if (!e || e->nr != r->key || strcmp(e->name, r->f[0]) ||
		    !same_str(r->f[1], e->param_struct) || e->size != r->num)
			bad = mismatch(t, r, bad);
	}
	ok(t->n > 0 && !bad, "all %zu rows of %s look up to their own row", t->n, t->name);

	e = nv_esc_lookup(0x2a);
	ok(e && !strcmp(e->name, "NV_ESC_RM_CONTROL") && e->size == 32 &&
	   !strcmp(e->param_struct, "NVOS54_PARAMETERS"),
	   "NV_ESC nr 0x2a is NV_ESC_RM_CONTROL, NVOS54_PARAMETERS, 32 bytes");
	e = nv_esc_lookup(0x2b);
	ok(e && !strcmp(e->name, "NV_ESC_RM_ALLOC") && e->size == 48 &&
	   !strcmp(e->param_struct, "NVOS64_PARAMETERS|NVOS21_PARAMETERS"),
	   "NV_ESC nr 0x2b is NV_ESC_RM_ALLOC, NVOS64|NVOS21, 48 bytes");
	e = nv_esc_lookup(0xd4);
	ok(e && !strcmp(e->name, "NV_ESC_ATTACH_GPUS_TO_FD") && e->size == 0,
	   "NV_ESC nr 0xd4 is NV_ESC_ATTACH_GPUS_TO_FD, variable size (0)");
	ok(!tsv_has(t, 0x00) && !nv_esc_lookup(0x00) && !nv_esc_lookup(0xff) &&
	   !nv_esc_lookup(0xffffffff), "unknown NV_ESC nr 0x00, 0xff, 0xffffffff give NULL");
}

static void check_ctrl_one(uint32_t cmd, const char *name, const char *st, uint32_t size)
{
	const struct nv_ctrl_info *c = nv_ctrl_lookup(cmd);

	ok(c && c->cmd == cmd && !strcmp(c->name, name) && same_str(st, c->param_struct) &&
	   c->params_size == size, "ctrl 0x%08x is %s, %u bytes", (unsigned)cmd, name, (unsigned)size);
}

static void check_ctrl(const struct tsv *t)
{
	const struct nv_ctrl_info *c, *prev = NULL;
	int bad = 0, sorted = 1;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		c = nv_ctrl_lookup(r->key);
		if (!c || c->cmd != r->key || strcmp(c->name, r->f[0]) ||
		    !same_str(r->f[1], c->param_struct) || c->params_size != r->num)
			bad = mismatch(t, r, bad);
	}
	ok(t->n > 0 && !bad, "all %zu rows of %s look up to their own row", t->n, t->name);
	ok(nv_ctrl_count() == t->n, "nv_ctrl_count() %zu == %zu rows in %s",
	   nv_ctrl_count(), t->n, t->name);
	for (i = 0; i < nv_ctrl_count(); prev = c, i++) {
		c = nv_ctrl_at(i);
		if (!c || (prev && prev->cmd >= c->cmd))
			sorted = 0;
	}
	ok(sorted && !nv_ctrl_at(i), "nv_ctrl_at() is strictly sorted and NULL past the end");

	/* Facts from ctrl_cmds.tsv (580.142). */
	check_ctrl_one(0x2080012f, "NV2080_CTRL_CMD_GPU_QUERY_ECC_STATUS",
		       "NV2080_CTRL_GPU_QUERY_ECC_STATUS_PARAMS", 1464);
	check_ctrl_one(0x20800110, "NV2080_CTRL_CMD_GPU_GET_NAME_STRING",
		       "NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS", 132);
	check_ctrl_one(0x00000205, "NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2",
		       "NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS", 32);
	check_ctrl_one(0x2080014a, "NV2080_CTRL_CMD_GPU_GET_GID_INFO",
		       "NV2080_CTRL_GPU_GET_GID_INFO_PARAMS", 268);
	check_ctrl_one(0x00800292, "NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2",
		       "NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS", 804);
	check_ctrl_one(0x20801201, "NV2080_CTRL_CMD_GR_GET_INFO",
		       "NV2080_CTRL_GR_GET_INFO_PARAMS", 32);
	/* Shared values: the command's own class (not NV003E_) and the name its
	 * params struct is named after (not the _ECC_ alias) win. */
	check_ctrl_one(0x00410103, "NV0041_CTRL_CMD_GET_SURFACE_PHYS_ATTR",
		       "NV0041_CTRL_GET_SURFACE_PHYS_ATTR_PARAMS", 48);
	check_ctrl_one(0x90e60101, "NV90E6_CTRL_CMD_MASTER_GET_ERROR_INTR_OFFSET_MASK",
		       "NV90E6_CTRL_MASTER_GET_ERROR_INTR_OFFSET_MASK_PARAMS", 16);
	/* An id the RM implements without a public #define. */
	check_ctrl_one(0x20800a3e, "nvoc:subdeviceCtrlCmdGrStaticGetFecsTraceDefines",
		       "NV2080_CTRL_INTERNAL_STATIC_GR_GET_FECS_TRACE_DEFINES_PARAMS", 256);

	/* 0x20809064: a GSS-legacy (bit 15) id seen on real H100s, no public name. */
	ok(!tsv_has(t, 0x20809064) && !nv_ctrl_lookup(0x20809064) &&
	   !nv_ctrl_lookup(0xffffffff),
	   "unknown ctrl 0x20809064 (GSS legacy) and 0xffffffff give NULL");
}

static void check_class_one(uint32_t id, const char *name, const char *st, uint32_t size)
{
	const struct nv_class_info *c = nv_class_lookup(id);

	ok(c && c->id == id && !strcmp(c->name, name) && same_str(st, c->param_struct) &&
	   c->params_size == size, "class 0x%04x is %s, alloc params %s (%u bytes)",
	   (unsigned)id, name, st, (unsigned)size);
}

static void check_class(const struct tsv *t)
{
	const struct nv_class_info *c, *prev = NULL;
	int bad = 0, sorted = 1;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		c = nv_class_lookup(r->key);
		if (!c || c->id != r->key || strcmp(c->name, r->f[0]) ||
		    !same_str(r->f[1], c->param_struct) || c->params_size != r->num)
			bad = mismatch(t, r, bad);
	}
	ok(t->n > 0 && !bad, "all %zu rows of %s look up to their own row", t->n, t->name);
	ok(nv_class_count() == t->n, "nv_class_count() %zu == %zu rows in %s",
	   nv_class_count(), t->n, t->name);
	for (i = 0; i < nv_class_count(); prev = c, i++) {
		c = nv_class_at(i);
		if (!c || (prev && prev->id >= c->id))
			sorted = 0;
	}
	ok(sorted && !nv_class_at(i), "nv_class_at() is strictly sorted and NULL past the end");

	/* Facts from classes.tsv and alloc_classes.tsv (580.142). */
	check_class_one(0x0080, "NV01_DEVICE_0", "NV0080_ALLOC_PARAMETERS", 56);
	check_class_one(0x2080, "NV20_SUBDEVICE_0", "NV2080_ALLOC_PARAMETERS", 4);
	check_class_one(0xc86f, "HOPPER_CHANNEL_GPFIFO_A", "NV_CHANNEL_ALLOC_PARAMS", 368);
	check_class_one(0xcbc0, "HOPPER_COMPUTE_A", "NV_GR_ALLOCATION_PARAMETERS", 16);
	/* 0x0000 has three aliases (NV01_NULL_OBJECT, ...) and one real name. */
	check_class_one(0x0000, "NV01_ROOT", "NvHandle", 4);
	check_class_one(0x0004, "NV01_TIMER", "-", 0);

	ok(!tsv_has(t, 0xffff) && !nv_class_lookup(0xffff) && !nv_class_lookup(0xffffffff),
	   "unknown class 0xffff and 0xffffffff give NULL");
}

static void check_status(const struct tsv *t)
{
	const struct nv_status_info *s;
	int bad = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		s = nv_status_lookup(r->key);
		if (!s || s->code != r->key || strcmp(s->name, r->f[0]) ||
		    strcmp(s->message, r->f[1]))
			bad = mismatch(t, r, bad);
	}
	ok(t->n > 0 && !bad, "all %zu rows of %s look up to their own row", t->n, t->name);

	s = nv_status_lookup(0);
	ok(s && !strcmp(s->name, "NV_OK") && !strcmp(s->message, "Success"),
	   "status 0 is NV_OK \"Success\"");
	s = nv_status_lookup(0x1f);
	ok(s && !strcmp(s->name, "NV_ERR_INVALID_ARGUMENT") &&
	   !strcmp(s->message, "Invalid argument to call"),
	   "status 0x1f is NV_ERR_INVALID_ARGUMENT \"Invalid argument to call\"");
	s = nv_status_lookup(0xffff);
	ok(s && !strcmp(s->name, "NV_ERR_GENERIC"), "status 0xffff is NV_ERR_GENERIC");
	ok(!tsv_has(t, 0xfffffffe) && !nv_status_lookup(0xfffffffe),
	   "unknown status 0xfffffffe gives NULL");
}

static void check_uvm_one(uint32_t cmd, const char *name, const char *st, uint32_t size)
{
	const struct uvm_ioctl_info *u = uvm_ioctl_lookup(cmd);

	ok(u && u->cmd == cmd && !strcmp(u->name, name) && same_str(st, u->param_struct) &&
	   u->size == size, "UVM 0x%x is %s, %u bytes", (unsigned)cmd, name, (unsigned)size);
}

static void check_uvm(const struct tsv *t)
{
	const struct uvm_ioctl_info *u, *prev = NULL;
	int bad = 0, sorted = 1;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		u = uvm_ioctl_lookup(r->key);
		if (!u || u->cmd != r->key || strcmp(u->name, r->f[0]) ||
		    !same_str(r->f[1], u->param_struct) || u->size != r->num)
			bad = mismatch(t, r, bad);
	}
	ok(t->n > 0 && !bad, "all %zu rows of %s look up to their own row", t->n, t->name);
	ok(uvm_ioctl_count() == t->n, "uvm_ioctl_count() %zu == %zu rows in %s",
	   uvm_ioctl_count(), t->n, t->name);
	for (i = 0; i < uvm_ioctl_count(); prev = u, i++) {
		u = uvm_ioctl_at(i);
		if (!u || (prev && prev->cmd >= u->cmd))
			sorted = 0;
	}
	ok(sorted && !uvm_ioctl_at(i), "uvm_ioctl_at() is strictly sorted and NULL past the end");

	/* Facts from uvm_ioctls.tsv (580.142). */
	check_uvm_one(0x30000001, "UVM_INITIALIZE", "UVM_INITIALIZE_PARAMS", 16);
	check_uvm_one(0x30000002, "UVM_DEINITIALIZE", "-", 0);
	check_uvm_one(0x21, "UVM_MAP_EXTERNAL_ALLOCATION", "UVM_MAP_EXTERNAL_ALLOCATION_PARAMS", 9264);
	ok(!tsv_has(t, 0) && !uvm_ioctl_lookup(0) && !uvm_ioctl_lookup(0xffffffff),
	   "unknown UVM 0 and 0xffffffff give NULL");
}

/* nv_esc and nv_status iterate like the other tables: every row, in key order. */
static void check_iteration(const struct tsv *esc, const struct tsv *status)
{
	size_t i;
	int sorted = 1;

	ok(nv_esc_count() == esc->n, "nv_esc_count() %zu == %zu rows", nv_esc_count(), esc->n);
	for (i = 1; i < nv_esc_count(); i++)
		sorted &= nv_esc_at(i - 1)->nr < nv_esc_at(i)->nr;
	ok(sorted && !nv_esc_at(i), "nv_esc_at() is strictly sorted and NULL past the end");
	ok(nv_status_count() == status->n, "nv_status_count() %zu == %zu rows",
	   nv_status_count(), status->n);
	sorted = 1;
	for (i = 1; i < nv_status_count(); i++)
		sorted &= nv_status_at(i - 1)->code < nv_status_at(i)->code;
	ok(sorted && !nv_status_at(i), "nv_status_at() is strictly sorted and NULL past the end");
}

/* The facts header (gen-facts.awk) names the same numbers as the tables. */
static void check_facts(void)
{
	const struct nv_esc_info *e = nv_esc_lookup(NV_ESC_RM_CONTROL);
	const struct nv_ctrl_info *c = nv_ctrl_lookup(NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD);
	const struct nv_class_info *k = nv_class_lookup(NV20_SUBDEVICE_0);
	const struct nv_status_info *st = nv_status_lookup(NV_ERR_INVALID_ARGUMENT);
	const struct uvm_ioctl_info *u = uvm_ioctl_lookup(UVM_INITIALIZE);

	ok(e && !strcmp(e->name, "NV_ESC_RM_CONTROL"), "nvfacts.h: NV_ESC_RM_CONTROL");
	ok(c && !strcmp(c->name, "NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD"),
	   "nvfacts.h: NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD");
	ok(k && !strcmp(k->name, "NV20_SUBDEVICE_0"), "nvfacts.h: NV20_SUBDEVICE_0");
	ok(st && !strcmp(st->name, "NV_ERR_INVALID_ARGUMENT"), "nvfacts.h: NV_ERR_INVALID_ARGUMENT");
	ok(u && !strcmp(u->name, "UVM_INITIALIZE"), "nvfacts.h: UVM_INITIALIZE");
	ok(NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM == 1,
	   "nvfacts.h: nv_defs.tsv's NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM");
}

int main(void)
{
	struct tsv esc, ctrl, cls, status, uvm;

	tsv_load(&esc, "nv_esc.tsv", 4);
	tsv_load(&ctrl, "nv_ctrl.tsv", 4);
	tsv_load(&cls, "nv_class.tsv", 4);
	tsv_load(&status, "nv_status.tsv", 3);
	tsv_load(&uvm, "uvm_ioctl.tsv", 4);

	ok(esc.tag[0] && !strcmp(nv_tables_tag, esc.tag), "nv_tables_tag \"%s\" is the #Tag of the TSV files",
	   nv_tables_tag);
	check_esc(&esc);
	check_ctrl(&ctrl);
	check_class(&cls);
	check_status(&status);
	check_uvm(&uvm);
	check_iteration(&esc, &status);
	check_facts();

	tsv_free(&esc);
	tsv_free(&ctrl);
	tsv_free(&cls);
	tsv_free(&status);
	tsv_free(&uvm);

	return tap_done();
}
