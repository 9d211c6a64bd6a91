"""What the companion keeps: the database's models, the connection (SQLite in ``instance/`` or a
PostgreSQL URL), SQLite's queued writer and the post path's precompiled statements.

May import: nothing of the companion but itself (Flask-SQLAlchemy, SQLAlchemy).
"""
