"""The local stack behind `make run`: emulator, tables, queues, server, poller, ticker.

Nothing else imports this package; the deployed app never does.
"""
