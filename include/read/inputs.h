/* inputs.h — logs in several files (issue 13): a directory given as an
 * input becomes the files under it, in reading order, and a file's path
 * may name the rank whose log it is.
 *
 * Layouts read (sources):
 *   torchrun --log-dir (torch.distributed.elastic.multiprocessing):
 *     <log_dir>/<run_id>/attempt_<n>/<local_rank>/stdout.log|stderr.log
 *   torchrun --tee / --redirects to files named per rank: rank3.log,
 *     rank_3.out, train-rank-3.log (any path component "rank" + number)
 *   Slurm sbatch/srun --output with %t (task id): out-1234-3.log beside
 *     out-1234-0.log … (names that differ only in their last number)
 *   logrotate: train.log, train.log.1, train.log.2.gz (read oldest first:
 *     .2.gz, .1, then train.log) */
#ifndef KG_INPUTS_H
#define KG_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/util.h"

#define KG_DIR_MAX_FILES 10000   /* more files under one directory: an error */
#define KG_DIR_MAX_DEPTH 8       /* directory levels below the one given */

typedef struct kg_input_file {
	char *path;
	int64_t rank;   /* from the path (kg_path_rank or a Slurm %t sibling
	                   group), or KG_NONE */
} kg_input_file;

/* Lists the regular files under dir (names starting with '.' skipped,
 * symbolic links to files followed, to directories not), in reading order:
 * by directory, then by name with numbers compared as numbers, rotated
 * copies of a file before it, oldest (highest number) first. Fills
 * *files (malloc'd, *n entries; free with kg_input_files_free). Returns 0,
 * or -1 with err (unreadable directory, more than KG_DIR_MAX_FILES files). */
int kg_dir_files(const char *dir, kg_input_file **files, size_t *n, kg_error *err);

void kg_input_files_free(kg_input_file *files, size_t n);

/* True when a and b are copies of one rotated log: the same directory and
 * the same name once a ".N" or ".N.gz" rotation suffix is taken off
 * (train.log.2.gz, train.log.1, train.log). */
bool kg_same_rotation(const char *a, const char *b);

/* The rank a path names, or KG_NONE: a component containing "rank" (any
 * case) followed by an optional '-', '_' or '.' and digits, or a torchrun
 * local-rank directory (all digits) holding stdout.log / stderr.log. */
int64_t kg_path_rank(const char *path);

#endif
