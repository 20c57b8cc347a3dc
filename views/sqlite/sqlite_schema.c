// SPDX-License-Identifier: MIT
#include "sqlite_schema.h"

/* Tables, then the indexes the common questions need, then views for them.
 * calls.id is the call id every other table points to (call_id). */
const char ct_sqlite_schema[] =
	"CREATE TABLE IF NOT EXISTS traces(id INTEGER PRIMARY KEY, trace_uid TEXT, host TEXT,"
	" driver TEXT, kernel TEXT, producer TEXT, options TEXT, start_realtime_ns INTEGER,"
	" start_monotonic_ns INTEGER, added_at TEXT, complete INTEGER DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS header(trace_id INTEGER, host TEXT, name TEXT, val TEXT);"
	"CREATE TABLE IF NOT EXISTS calls(id INTEGER PRIMARY KEY, trace_id INTEGER, host TEXT,"
	" start_ns INTEGER, dur_ns INTEGER, pid INTEGER, tid INTEGER, comm TEXT, syscall TEXT,"
	" name TEXT, request INTEGER, request_name TEXT, ctrl INTEGER, hclass INTEGER,"
	" client INTEGER, handle INTEGER, status INTEGER, status_name TEXT, ret INTEGER,"
	" failed INTEGER, finished INTEGER, gpu INTEGER, path TEXT, api TEXT, caller TEXT,"
	" note TEXT, py_file TEXT, py_line INTEGER, py_func TEXT);"
	"CREATE TABLE IF NOT EXISTS frames(call_id INTEGER, depth INTEGER, pc INTEGER,"
	" module_path TEXT, module_offset INTEGER, sym TEXT, sym_offset INTEGER, file TEXT,"
	" line INTEGER, kind TEXT);"
	"CREATE TABLE IF NOT EXISTS processes(trace_id INTEGER, host TEXT, start_ns INTEGER,"
	" pid INTEGER, ppid INTEGER, source TEXT, comm TEXT, argv TEXT, exit_ns INTEGER);"
	"CREATE TABLE IF NOT EXISTS objects(trace_id INTEGER, host TEXT, call_id INTEGER,"
	" start_ns INTEGER, pid INTEGER, client INTEGER, handle INTEGER, parent INTEGER,"
	" hclass INTEGER, class_name TEXT, gpu INTEGER, size INTEGER, kind TEXT,"
	" freed_ns INTEGER);"
	"CREATE TABLE IF NOT EXISTS mmaps(trace_id INTEGER, host TEXT, call_id INTEGER,"
	" start_ns INTEGER, dur_ns INTEGER, pid INTEGER, tid INTEGER, comm TEXT, addr INTEGER,"
	" len INTEGER, prot INTEGER, flags INTEGER, map_offset INTEGER, ret INTEGER,"
	" gpu INTEGER, path TEXT);"
	"CREATE TABLE IF NOT EXISTS device_memory(trace_id INTEGER, host TEXT, call_id INTEGER,"
	" start_ns INTEGER, pid INTEGER, gpu INTEGER, kind TEXT, held INTEGER);"
	/* --gpu-work: each kernel launch read, with its kernel (docs/KERNELS.md),
	 * its parameters and what CUDA's own kernels did (docs/GPUWORK.md) */
	"CREATE TABLE IF NOT EXISTS launches(trace_id INTEGER, host TEXT, start_ns INTEGER,"
	" pid INTEGER, gpu INTEGER, channel INTEGER, grid_x INTEGER, grid_y INTEGER,"
	" grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, smem INTEGER,"
	" program INTEGER, kernel TEXT, kernel_mangled TEXT, kernel_module TEXT,"
	" kernel_found TEXT, params BLOB, op TEXT, op_bytes INTEGER, op_src INTEGER,"
	" op_dst INTEGER, op_fill INTEGER);"
	"CREATE INDEX IF NOT EXISTS launches_kernel ON launches(trace_id, kernel);"
	"CREATE INDEX IF NOT EXISTS calls_pid ON calls(pid);"
	"CREATE INDEX IF NOT EXISTS calls_name ON calls(name);"
	"CREATE INDEX IF NOT EXISTS calls_api ON calls(api);"
	"CREATE INDEX IF NOT EXISTS calls_py ON calls(py_file, py_line);"
	"CREATE INDEX IF NOT EXISTS calls_trace ON calls(trace_id);"
	"CREATE INDEX IF NOT EXISTS frames_call ON frames(call_id);"
	"CREATE INDEX IF NOT EXISTS traces_uid ON traces(trace_uid);"
	"CREATE INDEX IF NOT EXISTS objects_handle ON objects(trace_id, client, handle);"
	"CREATE INDEX IF NOT EXISTS processes_pid ON processes(trace_id, pid);"
	"CREATE INDEX IF NOT EXISTS device_memory_pid ON device_memory(trace_id, pid);"
	/* -c's first table: per request (escape, UVM request, mmap, munmap). */
	"CREATE VIEW IF NOT EXISTS request_totals AS SELECT trace_id, host, syscall, request,"
	" request_name, count(*) AS calls, sum(failed) AS errors,"
	" sum(coalesce(dur_ns, 0)) AS total_ns, max(dur_ns) AS max_ns FROM calls"
	" GROUP BY trace_id, host, syscall, request;"
	/* ... and its RM control rows. */
	"CREATE VIEW IF NOT EXISTS control_totals AS SELECT trace_id, host, ctrl, name,"
	" count(*) AS calls, sum(failed) AS errors, sum(coalesce(dur_ns, 0)) AS total_ns,"
	" max(dur_ns) AS max_ns FROM calls WHERE ctrl IS NOT NULL"
	" GROUP BY trace_id, host, ctrl;"
	/* -c's device memory table: the peak and what was held at the end. */
	"CREATE VIEW IF NOT EXISTS process_device_memory AS SELECT trace_id, host, pid, gpu,"
	" kind, max(held) AS peak_bytes, (SELECT d2.held FROM device_memory d2"
	" WHERE d2.trace_id = d.trace_id AND d2.pid = d.pid AND d2.gpu IS d.gpu"
	" AND d2.kind = d.kind ORDER BY d2.rowid DESC LIMIT 1) AS held_bytes,"
	" count(*) AS changes FROM device_memory d GROUP BY trace_id, host, pid, gpu, kind;";

const char *const ct_sql_text[CT_SQL_COUNT] = {
	[CT_SQL_FIND_TRACE] = "SELECT id, added_at FROM traces WHERE trace_uid = ?"
			      " ORDER BY id LIMIT 1",
	[CT_SQL_TRACE] = "INSERT INTO traces(host, trace_uid, driver, kernel, producer, options,"
			 " start_realtime_ns, start_monotonic_ns, added_at)"
			 " VALUES(?, ?, ?, ?, ?, ?, ?, ?, datetime('now'))",
	[CT_SQL_COMPLETE] = "UPDATE traces SET complete = 1 WHERE id = ?",
	[CT_SQL_HEADER] = "INSERT INTO header VALUES(?, ?, ?, ?)",
	[CT_SQL_CALL] = "INSERT INTO calls(trace_id, host, start_ns, dur_ns, pid, tid, comm,"
			" syscall, name, request, request_name, ctrl, hclass, client, handle,"
			" status, status_name, ret, failed, finished, gpu, path, api, caller, note,"
			" py_file, py_line, py_func)"
			" VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
			" ?, ?, ?, ?, ?, ?)",
	[CT_SQL_FRAME] = "INSERT INTO frames VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[CT_SQL_PROC] = "INSERT INTO processes VALUES(?, ?, ?, ?, ?, ?, ?, ?, NULL)",
	[CT_SQL_EXIT] = "UPDATE processes SET exit_ns = ? WHERE trace_id = ? AND pid = ?"
			" AND exit_ns IS NULL",
	[CT_SQL_OBJ] = "INSERT INTO objects VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
	[CT_SQL_FREE] = "UPDATE objects SET freed_ns = ? WHERE trace_id = ? AND client = ?"
			" AND handle = ? AND freed_ns IS NULL",
	[CT_SQL_MMAP] = "INSERT INTO mmaps VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[CT_SQL_MEM] = "INSERT INTO device_memory VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
	[CT_SQL_LAUNCH] = "INSERT INTO launches VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
			  " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
};
