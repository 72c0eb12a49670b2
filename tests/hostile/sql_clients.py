"""One statement over either protocol, for the hostile tests: run(srv, sql, proto) gives the rows
as lists or raises QueryError (the SQE error name is known for Trino only). The caller has
checked that the trino client and adbc_driver_flightsql are installed (pytest.importorskip).
"""
import warnings


class QueryError(Exception):
    def __init__(self, name, message):
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


def run(srv, sql, proto="trino", user="alice"):
    """Rows of sql as lists, or QueryError."""
    if proto == "trino":
        import trino
        cur = trino.dbapi.connect(host="127.0.0.1", port=srv.trino_port, user=user,
                                  request_timeout=120).cursor()
        try:
            cur.execute(sql)
            return [list(r) for r in cur.fetchall()]
        except trino.exceptions.TrinoQueryError as e:  # TrinoUserError is one too
            raise QueryError(e.error_name, e.message)
    import adbc_driver_flightsql.dbapi as fs
    warnings.simplefilter("ignore")
    with fs.connect(srv.flight_uri) as conn, conn.cursor() as cur:
        try:
            cur.execute(sql)
            return [list(r) for r in cur.fetchall()]
        except Exception as e:  # adbc_driver_manager.Error subclasses
            raise QueryError(None, str(e))
