// SPDX-License-Identifier: MIT
/* Per-class facts for the --gpu-work decoder, from the tables by name.
 * Shared by the capture's reader thread and its record loop: the cache
 * is filled under a lock, and an entry once filled never moves. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuwork_class.h"

#define GW_CLASS_CACHE 64

static struct gw_class cache[GW_CLASS_CACHE];
static int ncache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
/* past the cache: filled anew at each miss, by and for the calling thread */
static __thread struct gw_class unknown_class;

static uint32_t method(const struct gw_class *k, const char *name)
{
	uint32_t m;

	return gw_method_find(k->cls, name, &m) ? m : GW_NO_METHOD;
}

static const struct gw_field *field(const struct gw_class *k, const char *name)
{
	return gw_field_find(k->scope, name);
}

static void fill_host(struct gw_class *k)
{
	k->set_object = method(k, "SET_OBJECT");
	k->sem_addr_lo = method(k, "SEM_ADDR_LO");
	k->sem_addr_hi = method(k, "SEM_ADDR_HI");
	k->sem_payload_lo = method(k, "SEM_PAYLOAD_LO");
	k->sem_payload_hi = method(k, "SEM_PAYLOAD_HI");
	k->sem_execute = method(k, "SEM_EXECUTE");
	k->sem_op = field(k, "SEM_EXECUTE_OPERATION");
	k->sem_size = field(k, "SEM_EXECUTE_PAYLOAD_SIZE");
	if (!gw_value_find(k->scope, "SEM_EXECUTE_PAYLOAD_SIZE_32BIT", &k->sem_size_32))
		k->sem_size_32 = 0;
	k->gp_get = field(k, "GP_ENTRY0_GET");
	k->gp_get_hi = field(k, "GP_ENTRY1_GET_HI");
	k->gp_length = field(k, "GP_ENTRY1_LENGTH");
	k->gp_level = field(k, "GP_ENTRY1_LEVEL");
	k->gp_sync = field(k, "GP_ENTRY1_SYNC");
	k->gp_fetch = field(k, "GP_ENTRY0_FETCH");
	k->gp_opcode = field(k, "GP_ENTRY1_OPCODE");
	k->gp_operand = field(k, "GP_ENTRY0_OPERAND");
	k->gp_base_operand = field(k, "GP_ENTRY0_PB_EXTENDED_BASE_OPERAND");
	k->has_set_base = k->gp_base_operand &&
			  gw_value_find(k->scope, "GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE",
					&k->gp_op_set_base);
}

/* Dependent QMD i's field NAME: "DEPENDENT_QMD_NAME(i)" (V04's indexed
 * form) or "DEPENDENT_QMD<i>_NAME" (V03, V05); prefix: its values' prefix. */
static const struct gw_field *dep_field(const char *scope, const char *name, int i,
					char prefix[40])
{
	const struct gw_field *f;
	char n[40];

	snprintf(n, sizeof(n), "DEPENDENT_QMD_%s(%d)", name, i);
	if ((f = gw_field_find(scope, n))) {
		snprintf(prefix, 40, "DEPENDENT_QMD_%s", name);
		return f;
	}
	snprintf(n, sizeof(n), "DEPENDENT_QMD%d_%s", i, name);
	snprintf(prefix, 40, "%s", n);
	return gw_field_find(scope, n);
}

/* What a layout says about clusters and chains of QMDs (none before V03). */
static void add_chain_fields(struct gw_qmd_layout *q)
{
	static const char *const cga[3] = { "GPC_CGA_WIDTH", "GPC_CGA_HEIGHT", "GPC_CGA_DEPTH" };
	char name[64], unused[40];
	int i;

	for (i = 0; i < 3; i++)
		q->cga[i] = gw_field_find(q->scope, cga[i]);
	q->type = gw_field_find(q->scope, "QMD_TYPE");
	q->dep_counter = gw_field_find(q->scope, "DEPENDENCE_COUNTER");
	q->require_pcas = gw_field_find(q->scope, "REQUIRE_SCHEDULING_PCAS");
	q->have_require_true = gw_value_find(q->scope, "REQUIRE_SCHEDULING_PCAS_TRUE",
					     &q->require_true);
	for (i = 0; i < GW_QMD_DEPS; i++) {
		snprintf(name, sizeof(name), "DEPENDENT_QMD%d_POINTER", i);
		q->dep_pointer[i] = gw_field_find(q->scope, name);
		q->dep_enable[i] = dep_field(q->scope, "ENABLE", i, unused);
		q->dep_action[i] = dep_field(q->scope, "ACTION", i, q->action_prefix[i]);
		snprintf(name, sizeof(name), "%s_QMD_SCHEDULE", q->action_prefix[i]);
		q->have_schedule[i][0] = gw_value_find(q->scope, name, &q->act_schedule[i][0]);
		snprintf(name, sizeof(name), "%s_QMD_INVALIDATE_COPY_SCHEDULE", q->action_prefix[i]);
		q->have_schedule[i][1] = gw_value_find(q->scope, name, &q->act_schedule[i][1]);
	}
}

/* Constant bank 0's address, size and valid bit: V04 on keep the address
 * shifted by 6 (..._SHIFTED6), the versions before whole. */
static void add_cbank0_fields(struct gw_qmd_layout *q)
{
	q->cb_lo = gw_field_find(q->scope, "CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(0)");
	q->cb_hi = gw_field_find(q->scope, "CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6(0)");
	q->cb_shift = 6;
	if (!q->cb_lo) {
		q->cb_lo = gw_field_find(q->scope, "CONSTANT_BUFFER_ADDR_LOWER(0)");
		q->cb_hi = gw_field_find(q->scope, "CONSTANT_BUFFER_ADDR_UPPER(0)");
		q->cb_shift = 0;
	}
	q->cb_size = gw_field_find(q->scope, "CONSTANT_BUFFER_SIZE_SHIFTED4(0)");
	q->cb_valid = gw_field_find(q->scope, "CONSTANT_BUFFER_VALID(0)");
}

/* One QMD version's layout, "qmd:cbc0:04_00", if its version fields are known. */
static void add_qmd(struct gw_class *k, const char *version)
{
	struct gw_qmd_layout *q;
	static const char *const grid[2][3] = {
		{ "GRID_WIDTH", "GRID_HEIGHT", "GRID_DEPTH" },
		{ "CTA_RASTER_WIDTH", "CTA_RASTER_HEIGHT", "CTA_RASTER_DEPTH" } };
	const char *scope;
	unsigned maj, min;
	int i;

	if (k->nqmd >= GW_QMD_VERSIONS || sscanf(version, "%2u_%2u", &maj, &min) != 2)
		return;
	q = &k->qmd[k->nqmd];
	snprintf(q->version, sizeof(q->version), "%s", version);
	snprintf(q->scope, sizeof(q->scope), "qmd:%s:%s", k->scope, version);
	scope = q->scope;
	q->major = gw_field_find(scope, "QMD_MAJOR_VERSION");
	q->minor = gw_field_find(scope, "QMD_MINOR_VERSION");   /* V04 on */
	if (!q->minor)
		q->minor = gw_field_find(scope, "QMD_VERSION");  /* V03's name */
	q->want_major = maj;
	q->want_minor = min;
	add_chain_fields(q);
	for (i = 0; i < 3; i++) {
		char b[32];

		q->grid[i] = gw_field_find(scope, grid[0][i]);
		if (!q->grid[i])
			q->grid[i] = gw_field_find(scope, grid[1][i]);
		snprintf(b, sizeof(b), "CTA_THREAD_DIMENSION%d", i);
		q->block[i] = gw_field_find(scope, b);
	}
	q->smem = gw_field_find(scope, "SHARED_MEMORY_SIZE");
	q->regs = gw_field_find(scope, "REGISTER_COUNT_V");   /* V02-V03: REGISTER_COUNT older */
	if (!q->regs)
		q->regs = gw_field_find(scope, "REGISTER_COUNT");
	add_cbank0_fields(q);
	q->prog_lo = gw_field_find(scope, "PROGRAM_ADDRESS_LOWER");
	q->prog_hi = gw_field_find(scope, "PROGRAM_ADDRESS_UPPER");
	if (q->major && q->grid[0])
		k->nqmd++;
}

static void fill_qmd(struct gw_class *k)
{
	char prefix[16];
	size_t n;
	unsigned i;
	int j;

	n = (size_t)snprintf(prefix, sizeof(prefix), "qmd:%s:", k->scope);
	for (i = 0; i < gw_nfields; i++) {
		const char *v = gw_fields[i].scope + n;
		bool seen = false;

		if (strncmp(gw_fields[i].scope, prefix, n))
			continue;
		for (j = 0; j < k->nqmd; j++)
			seen |= !strcmp(k->qmd[j].version, v);
		if (!seen)
			add_qmd(k, v);
	}
}

static void fill_compute(struct gw_class *k)
{
	k->offset_out_upper = method(k, "OFFSET_OUT_UPPER");
	k->offset_out = method(k, "OFFSET_OUT");
	k->load_inline_data = method(k, "LOAD_INLINE_DATA");
	k->send_pcas_a = method(k, "SEND_PCAS_A");
	k->send_pcas2_b = method(k, "SEND_SIGNALING_PCAS2_B");
	k->send_pcas_b = method(k, "SEND_SIGNALING_PCAS_B");
	k->report_a = method(k, "SET_REPORT_SEMAPHORE_A");
	k->report_b = method(k, "SET_REPORT_SEMAPHORE_B");
	k->report_c = method(k, "SET_REPORT_SEMAPHORE_C");
	k->report_d = method(k, "SET_REPORT_SEMAPHORE_D");
	k->pcas2_action = field(k, "SEND_SIGNALING_PCAS2_B_PCAS_ACTION");
	k->pcas_b_schedule = field(k, "SEND_SIGNALING_PCAS_B_SCHEDULE");
	k->report_op = field(k, "SET_REPORT_SEMAPHORE_D_OPERATION");
	fill_qmd(k);
}

static void fill_copy(struct gw_class *k)
{
	k->offset_in_upper = method(k, "OFFSET_IN_UPPER");
	k->offset_in_lower = method(k, "OFFSET_IN_LOWER");
	k->offset_out_upper = method(k, "OFFSET_OUT_UPPER");
	k->offset_out_lower = method(k, "OFFSET_OUT_LOWER");
	k->sem_a = method(k, "SET_SEMAPHORE_A");
	k->sem_b = method(k, "SET_SEMAPHORE_B");
	k->sem_payload = method(k, "SET_SEMAPHORE_PAYLOAD");
	k->transfer_type = field(k, "LAUNCH_DMA_DATA_TRANSFER_TYPE");
	k->multi_line = field(k, "LAUNCH_DMA_MULTI_LINE_ENABLE");
	k->remap = field(k, "LAUNCH_DMA_REMAP_ENABLE");
	k->sem_type = field(k, "LAUNCH_DMA_SEMAPHORE_TYPE");
}

static void fill(struct gw_class *k, uint32_t cls)
{
	memset(k, 0, sizeof(*k));
	k->cls = cls;
	gw_scope_of(cls, k->scope);
	k->line_length_in = method(k, "LINE_LENGTH_IN");
	k->line_count = method(k, "LINE_COUNT");
	k->launch_dma = method(k, "LAUNCH_DMA");
	if (method(k, "SEM_EXECUTE") != GW_NO_METHOD) {
		k->engine = GW_ENG_HOST;
		fill_host(k);
	} else if (method(k, "SEND_PCAS_A") != GW_NO_METHOD) {
		k->engine = GW_ENG_COMPUTE;
		fill_compute(k);
	} else if (method(k, "OFFSET_IN_UPPER") != GW_NO_METHOD) {
		k->engine = GW_ENG_COPY;
		fill_copy(k);
	}
}

const struct gw_class *gw_class_get(uint32_t cls)
{
	const struct gw_class *k = NULL;
	int i;

	pthread_mutex_lock(&cache_lock);
	for (i = 0; i < ncache && !k; i++)
		if (cache[i].cls == cls)
			k = &cache[i];
	if (!k && ncache < GW_CLASS_CACHE) {
		fill(&cache[ncache], cls);
		k = &cache[ncache++];
	}
	pthread_mutex_unlock(&cache_lock);
	if (!k) {   /* garbage SET_OBJECTs: stop caching */
		fill(&unknown_class, cls);
		k = &unknown_class;
	}
	return k;
}
