// The hbase binding's session: YCSB's hbase2 operations on one Client
// (db/hbase/client.h). A record is one row (row key = the YCSB key); each
// field is a column of the column family hbase.columnfamily, its qualifier
// the field name.
//
//   Read    Get of the row (all columns of the family, or the named ones);
//           NOT_FOUND when the row has no cell.
//   Insert  hbase.insert=replace (default): a Get of the row's column names
//           (KeyOnlyFilter); a new row, or one whose columns the record all
//           sets, is one Mutate PUT; else one atomic Multi (RowMutations) of
//           a delete of the other columns and the put, so the row holds
//           exactly the record. hbase.insert=put: one Mutate PUT (YCSB's
//           hbase2 binding: columns not given stay).
//           A record of no fields is one column with an empty name and
//           value (HBase has no row without cells), which reads hide.
//   Update  Mutate PUT of the given columns, conditional on the row
//           existing (checkAndMutate with a FirstKeyOnlyFilter): NOT_FOUND
//           and nothing written when it does not.
//   Delete  Mutate DELETE of the whole row.
//   Batch   BatchInsert and BatchRead: one Multi per region server
//           (db/hbase/batch.h).
//   Flush   hbase.clientbuffering: the buffered puts (Insert and Update
//           join a buffer of hbase.writebuffersize bytes, sent as Multi
//           batches when full) are sent; the runner calls it once at the
//           end of the client's operations, inside the timed phase.
// Every put and delete carries hbase.durability.
//   Scan    Scan from the start row (the named columns), up to count rows,
//           opened and closed in one ScanRequest (number_of_rows, close);
//           continued in the next region when the first one ends before
//           count rows, and after its last row when the server stops early.
//
// Used by one thread; never throws (Guard). No allocation per operation
// once the buffers and messages have grown.
#pragma once

#include <memory>

#include "db/binding.h"
#include "db/hbase/client.h"

namespace storebench::hbase {

std::unique_ptr<Session> NewHBaseSession(std::shared_ptr<Client> client);

}  // namespace storebench::hbase
