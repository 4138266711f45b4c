"""`embed/status.js`: a script a third-party site includes to show the page's colored badge
while an incident is open or a maintenance is in progress (nothing otherwise).

The state is written into the script as JSON (with `<`, `>`, `&` and line separators escaped,
so no text can end the script element), and the badge is made with `textContent`: nothing a
page's people wrote is ever parsed as HTML on the host site.
"""

import json

from chalicelib.views.content import IN_PROGRESS, UNRESOLVED

_SCRIPT = """(function () {
  var state = %s;
  if (!state.event) { return; }
  function show() {
    var config = state.config;
    var maintenance = state.event.kind === "maintenance";
    var badge = document.createElement("a");
    badge.href = state.event.url;
    badge.target = "_blank";
    badge.rel = "noopener";
    badge.setAttribute("role", "status");
    badge.setAttribute("data-statuspage-embed", "");
    var vertical = config.position.indexOf("top") === 0 ? "top" : "bottom";
    var horizontal = config.position.indexOf("left") > 0 ? "left" : "right";
    badge.style.cssText = "position:fixed;z-index:2147483647;max-width:20rem;padding:.8rem 1rem;" +
      "border-radius:6px;box-shadow:0 2px 12px rgba(0,0,0,.25);text-decoration:none;" +
      "font:14px/1.4 -apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,sans-serif;" +
      vertical + ":1rem;" + horizontal + ":1rem;";
    badge.style.background = maintenance ? config.maintenance_background_color : config.incident_background_color;
    badge.style.color = maintenance ? config.maintenance_text_color : config.incident_text_color;
    var title = document.createElement("strong");
    title.style.display = "block";
    title.textContent = state.event.name;
    var detail = document.createElement("span");
    detail.textContent = state.event.detail;
    badge.appendChild(title);
    badge.appendChild(detail);
    document.body.appendChild(badge);
  }
  if (document.body) { show(); } else { document.addEventListener("DOMContentLoaded", show); }
})();
"""


def _script_json(value: dict) -> str:
    text = json.dumps(value, separators=(",", ":"))
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(raw, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _event(data: dict, site_url: str) -> dict | None:
    """The open incident to show (the newest), else the maintenance in progress."""
    for state, kind, detail in (
        (UNRESOLVED, "incident", "View the latest updates"),
        (IN_PROGRESS, "maintenance", "Maintenance in progress"),
    ):
        for entry in data["incidents"]:
            if entry["state"] == state:
                incident = entry["incident"]
                return {
                    "kind": kind,
                    "name": incident["name"],
                    "detail": detail,
                    "url": f"{site_url}/incidents/{incident['id']}",
                }
    return None


def script(data: dict, site_url: str) -> str:
    state = {"event": _event(data, site_url), "config": data["embed"]}
    return _SCRIPT % _script_json(state)
