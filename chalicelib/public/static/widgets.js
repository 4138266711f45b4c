/* The public pages' one script, inline and allowed by its hash: it only adds to what the
   markup and the style sheet already show (a day's card on hover and focus, a table of each
   chart's values), and reads nothing but the page. */
(function () {
  "use strict";
  var clamp = function (value, low, high) { return Math.max(low, Math.min(high, value)); };
  var keys = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };

  // The uptime bars: a row is one stop of the tab order, the arrow keys move along its days,
  // a tap or click focuses a day (Safari focuses no button on click), Escape hides its card.
  document.querySelectorAll(".bars").forEach(function (row) {
    var bars = Array.prototype.slice.call(row.querySelectorAll(".bar"));
    bars.forEach(function (bar, index) { bar.tabIndex = index === bars.length - 1 ? 0 : -1; });
    row.addEventListener("click", function (event) {
      var bar = event.target.closest(".bar");
      if (bar) { bar.focus(); }
    });
    row.addEventListener("keydown", function (event) {
      var bar = event.target.closest(".bar");
      if (!bar) { return; }
      if (event.key === "Escape") {
        bar.parentNode.classList.add("dismissed");
        return;
      }
      if (!(event.key in keys)) { return; }
      event.preventDefault();
      // The days a phone leaves out are skipped.
      var shown = bars.filter(function (each) { return each.offsetParent !== null; });
      var index = clamp(shown.indexOf(bar) + keys[event.key], 0, shown.length - 1);
      bars.forEach(function (each) { each.tabIndex = -1; });
      shown[index].tabIndex = 0;
      shown[index].focus();
    });
    var undismiss = function (event) {
      var day = event.target.closest(".uptime-day");
      if (day && !day.contains(event.relatedTarget)) { day.classList.remove("dismissed"); }
    };
    row.addEventListener("focusout", undismiss);
    row.addEventListener("mouseout", undismiss);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    document.querySelectorAll(".uptime-day:hover").forEach(function (day) {
      day.classList.add("dismissed");
    });
  });

  // The metric charts: the value nearest the pointer, or the one the arrow keys reach once
  // the chart has the focus, from the chart's own table.
  document.querySelectorAll(".metric-figure").forEach(function (figure) {
    var plot = figure.querySelector(".metric-plot");
    var rows = figure.querySelectorAll("tbody tr");
    if (!plot || !rows.length) { return; }
    var points = Array.prototype.map.call(rows, function (row) {
      return {
        x: parseFloat(row.dataset.x),
        y: parseFloat(row.dataset.y),
        text: row.cells[0].textContent + ": " + row.cells[1].textContent
      };
    });
    var tip = plot.querySelector(".metric-tip");
    var cursor = plot.querySelector(".metric-cursor");
    var marker = plot.querySelector(".metric-marker");
    var live = figure.querySelector(".metric-live");
    var name = figure.closest(".metric").querySelector("h3").textContent;
    var current = points.length - 1;
    var show = function (index, announce) {
      var point = points[index];
      current = index;
      tip.textContent = point.text;
      tip.hidden = false;
      // A property set through the object model, which the policy allows (no style attribute).
      tip.style.left = point.x + "%";
      tip.classList.toggle("from-start", point.x < 15);
      tip.classList.toggle("from-end", point.x > 85);
      cursor.setAttribute("x1", point.x + "%");
      cursor.setAttribute("x2", point.x + "%");
      marker.setAttribute("cx", point.x + "%");
      marker.setAttribute("cy", point.y);
      plot.classList.add("reading");
      if (announce) { live.textContent = point.text; }
    };
    var hide = function () {
      tip.hidden = true;
      plot.classList.remove("reading");
    };
    var nearest = function (x) {
      var best = 0;
      points.forEach(function (point, index) {
        if (Math.abs(point.x - x) < Math.abs(points[best].x - x)) { best = index; }
      });
      return best;
    };
    plot.tabIndex = 0;
    plot.setAttribute("role", "group");
    plot.setAttribute("aria-label", name + ": the left and right arrow keys read its values");
    plot.addEventListener("pointermove", function (event) {
      var box = plot.getBoundingClientRect();
      show(nearest((event.clientX - box.left) / box.width * 100), false);
    });
    plot.addEventListener("pointerleave", function () {
      if (document.activeElement !== plot) { hide(); }
    });
    plot.addEventListener("focus", function () { show(current, true); });
    plot.addEventListener("blur", hide);
    plot.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { hide(); return; }
      if (!(event.key in keys)) { return; }
      event.preventDefault();
      show(clamp(current + keys[event.key], 0, points.length - 1), true);
    });
  });

  // The history: its incidents filtered by a component they name, the choice kept in the
  // address (`?component=`) and in the pager's links.
  var filter = document.getElementById("history-filter");
  if (filter) {
    var select = filter.querySelector("select");
    var wanted = new URLSearchParams(location.search).get("component");
    if (wanted && select.querySelector("option[value='" + CSS.escape(wanted) + "']")) {
      select.value = wanted;
    }
    var keep = function (href) {
      var address = new URL(href, location.href);
      if (select.value) {
        address.searchParams.set("component", select.value);
      } else {
        address.searchParams.delete("component");
      }
      return address.href;
    };
    var apply = function () {
      var option = select.options[select.selectedIndex];
      var ids = option.value ? option.dataset.ids.split(" ") : null;
      document.querySelectorAll("#history .month").forEach(function (month) {
        var listed = 0;
        month.querySelectorAll(".incident").forEach(function (card) {
          var named = (card.dataset.componentIds || "").split(" ");
          var shown = !ids || named.some(function (id) { return ids.indexOf(id) >= 0; });
          card.hidden = !shown;
          listed += shown ? 1 : 0;
        });
        var none = month.querySelector(".filter-empty");
        if (none) { none.hidden = listed > 0; }
      });
      history.replaceState(null, "", keep(location.href));
      document.querySelectorAll(".pager a").forEach(function (link) { link.href = keep(link.href); });
    };
    filter.hidden = false;
    filter.addEventListener("submit", function (event) { event.preventDefault(); });
    select.addEventListener("change", apply);
    apply();
  }
}());
