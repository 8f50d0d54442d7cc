"""The database: the connection, fixed-shape prepared queries, the tables' common base and the
schema migrations."""
