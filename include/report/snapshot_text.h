/* snapshot_text.h — the `snapshot` subcommand's text view of a snapshot
 * document (model/snapshot.h). */
#ifndef KG_SNAPSHOT_TEXT_H
#define KG_SNAPSHOT_TEXT_H

#include <stdio.h>
#include "model/snapshot.h"

/* Readable view of one snapshot: summary table, fragmentation line,
 * free-block histogram, top sites (or the stats table). */
void kg_snapshot_text(const kg_snapshot *snap, FILE *out);

#endif
