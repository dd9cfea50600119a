#pragma once
// PRIVATE to the PostgreSQL backend: a transaction rolled back unless committed (an exception
// between BEGIN and commit() leaves the database as it was).
#include "project/pg_connection.h"

namespace linkscope::project {

class PgTransaction {
public:
    /// BEGIN, with an isolation level's clause such as "ISOLATION LEVEL REPEATABLE READ, READ ONLY".
    explicit PgTransaction(PgConnection& connection, const char* mode = "") : connection_(connection) {
        connection_.execScript(std::string("BEGIN ") + mode);
    }
    PgTransaction(const PgTransaction&) = delete;
    PgTransaction& operator=(const PgTransaction&) = delete;
    ~PgTransaction() {
        if (done_) return;
        try {
            connection_.execScript("ROLLBACK");
        } catch (...) {
            // A lost connection ends its transaction on the server without a commit.
        }
    }
    /// COMMIT: once it returns, the transaction is durable (synchronous_commit is on).
    void commit() {
        done_ = true;
        connection_.execScript("COMMIT");
    }

private:
    PgConnection& connection_;
    bool done_ = false;
};

}  // namespace linkscope::project
