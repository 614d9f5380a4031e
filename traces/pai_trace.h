// traces/pai_trace.h — the "pai" trace format: Alibaba PAI's GPU cluster trace of 2020 (alibaba/clusterdata,
// cluster-trace-gpu-v2020, NSDI'22): the headerless pai_job_table.csv (job_name,inst_id,user,status,start_time,
// end_time) for each job's user, status and times, and pai_task_table.csv (job_name,task_name,inst_num,status,
// start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type) for its GPUs (fractional: plan_gpu is a percentage of one
// GPU) and GPU type. The job table is streamed; the task table is summed per job into a hash map first.
#pragma once

#include <cstddef>
#include <string>

#include "traces/trace_format.h"

namespace ringsched {

// What to do with a job whose tasks ask for a fractional number of GPUs in all (e.g. one instance of plan_gpu 50).
enum class FractionalGpus {
  kCeil,   // round the job's total up to whole GPUs (the default; counted in Trace::gpus_rounded_up)
  kDrop,   // leave the job out (counted in Trace::skipped.fractional_gpus)
  kError,  // InputError naming the job table's file:line
};

struct PaiTraceSpec {
  std::string task_table;  // the path of pai_task_table.csv (required)
  FractionalGpus fractional = FractionalGpus::kCeil;
  bool drop_zero_gpus = false;  // jobs whose tasks ask for no GPU: false = an error naming file:line, true = left out
};

// Reads both tables (each headerless, as published; a first line equal to the column names is taken as a header).
// A job's GPUs = sum over its tasks of inst_num x plan_gpu / 100 (an empty plan_gpu is a task without GPUs), rounded
// per spec.fractional; its GPU type that of its task asking for the most GPUs (the first on ties); its submit time the
// job's start_time, its run time from its first task's start_time to the job's end_time (the latest task end_time when
// the job gives none); times are seconds, and an empty time or 0 is not recorded (as the PAI analysis reads them); its
// outcome its status (Terminated -> completed, Failed -> failed). Jobs left out, counted in Trace::skipped, each once
// by the first reason that applies: status Running (still_running); status Waiting or no task (never_ran); 0 GPUs
// (zero_gpus, when spec.drop_zero_gpus); no submit time, no task start, no end or a 0 s run (never_ran); a fractional
// total under kDrop (fractional_gpus). Errors name file:line and the column; a task row whose job is not in the job
// table, or a job given twice, is an error naming both. Only the first `keep` jobs by submit time are held (0 = all).
Trace read_pai_trace(const std::string& job_table, const PaiTraceSpec& spec, std::size_t keep = 0);

const TraceFormat& pai_trace_format();

}  // namespace ringsched
