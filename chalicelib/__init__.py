"""The status page service, in layers: each room has one job and imports only the rooms below it.

Top to bottom:

- `app.py` (beside this package) **wires**: blueprints, event handlers, the listener that runs
  after a commit. `local/` wires the same pieces into the stack of `make run`.
- `http/` **decodes** bodies, **authenticates** keys, counts the rate limit and **maps errors**
  to the contract's body; `schemas/` beside it holds the bodies (pydantic) and the OpenAPI
  document made from them. A request meets them first, but they are the callers' tools: the
  callers import them, never the other way.
- `api/`, `console/`, `public/`, `importer/`, `admin.py` and `jobs/` **call the rules**: they
  turn a request, a command line, a source page or a schedule into plain inputs, call the
  domain, and render what it returns.
- `notify/` **sends**: outbox, fan-out, delivery of emails, text messages and webhooks.
- `views/` **shape answers**: domain objects as response schemas, and the public page's
  read model (its snapshot, which the notifications read too); `web/` holds what the
  console's, the public page's and the emails' HTML share (labels, times, colours, templates,
  security headers).
- `domain/` **holds the rules**: plain inputs (keyword arguments or its own dataclasses), its
  own errors, every write through the one unit of work (`domain/unit_of_work.py`).
- `sitestore/` **keeps files**: where the published page goes (a folder, or S3).
- `store/` **alone knows DynamoDB**: the PynamoDB models, one module per resource.
- `net.py`, `clock.py`, `ids.py`, `config.py`, `observability/` (and `recent.py`,
  `environment.py`) are **below everything**: any room may use them; they import none of it.

Who may import whom:

- A room imports only rooms below its own. The domain imports nothing of `schemas`, `http`,
  `notify`, `views`, `web` or any caller; `store/` imports nothing of the domain.
- The callers reach data through the domain or the views, never the store, and do not import
  each other, but for three steps others run: `admin.py` runs the importer, publishes a page
  (`public/publish.py`) and repairs the local stack's journal; `jobs/` publishes the page as a
  write does; the console shows the public page's own preview and charts.
- Nothing imports `local/` but `admin.py`'s journal repair; nothing imports `app.py`.
- An import under `if TYPE_CHECKING:` is an annotation and does not count; an import inside a
  function does.

`tests/unit/test_layers.py` holds these rules as a table and fails on every import that breaks
one, with its module and line; a climb still made would be listed there by name, as remaining
work, and the list can only shrink (it is empty).
"""
