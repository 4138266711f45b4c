/* The public pages' one script, inline and allowed by its hash: it only adds to what the
   markup and the style sheet already show (a day's card on hover and focus, a table of each
   chart's values, how long ago a moment was), and reads nothing but the page and the
   reader's clock. */
(function () {
  "use strict";
  var clamp = function (value, low, high) { return Math.max(low, Math.min(high, value)); };
  var keys = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };

  // Times: the page writes each moment in its own time zone; here they are also told in the
  // reader's zone where it differs, and as "12 minutes ago" or a maintenance's countdown,
  // from the reader's clock (the published file does not change as time passes).
  // The footer that names the page's zone comes after this script: once the page is read.
  var times = function () {
    var note = document.getElementById("time-zone");
    var pageZone = note && note.dataset.timeZone;
    var readerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    var relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
    // Formatters are dear to make: one of each, for a page of many times.
    var format = function (zone, options) {
      return new Intl.DateTimeFormat("en-US", Object.assign({ timeZone: zone }, options));
    };
    var wall = { dateStyle: "short", timeStyle: "short", hourCycle: "h23" };
    var clock = { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" };
    var differs = pageZone && readerZone && {
      wall: [format(pageZone, wall), format(readerZone, wall)],
      day: [format(pageZone, { dateStyle: "medium" }), format(readerZone, { dateStyle: "medium" })],
      time: format(readerZone, clock),
      dayAndTime: format(readerZone, Object.assign({ month: "short", day: "numeric" }, clock))
    };
    // The reader's own time of a moment, where their clock reads otherwise than the page's.
    var readersTime = function (moment) {
      if (!differs || differs.wall[0].format(moment) === differs.wall[1].format(moment)) {
        return "";
      }
      var otherDay = differs.day[0].format(moment) !== differs.day[1].format(moment);
      return (otherDay ? differs.dayAndTime : differs.time).format(moment) + " your time";
    };
    var ago = function (seconds) {
      var size = Math.abs(seconds);
      if (size < 45) { return seconds < 0 ? "just now" : "in under a minute"; }
      if (size < 3600) { return relative.format(Math.round(seconds / 60), "minute"); }
      if (size < 86400) { return relative.format(Math.round(seconds / 3600), "hour"); }
      if (size < 30 * 86400) { return relative.format(Math.round(seconds / 86400), "day"); }
      if (size < 365 * 86400) { return relative.format(Math.round(seconds / 2592000), "month"); }
      return relative.format(Math.round(seconds / 31536000), "year");
    };
    var moments = Array.prototype.map.call(document.querySelectorAll("time.moment"), function (time) {
      var aside = document.createElement("span");
      aside.className = "time-aside";
      time.after(aside);
      var at = new Date(time.dateTime);
      return { time: time, at: at, aside: aside, own: readersTime(at) };
    });
    var countdowns = document.querySelectorAll(".countdown[data-relative=countdown]");
    var tell = function () {
      var now = Date.now();
      moments.forEach(function (moment) {
        var parts = [];
        if (moment.time.dataset.relative === "ago") { parts.push(ago((moment.at - now) / 1000)); }
        if (moment.own) { parts.push(moment.own); }
        moment.aside.textContent = parts.length ? " (" + parts.join("; ") + ")" : "";
      });
      countdowns.forEach(function (countdown) {
        var starts = new Date(countdown.dataset.starts), ends = new Date(countdown.dataset.ends);
        var text = now < starts ? "Starts " + ago((starts - now) / 1000)
          : now < ends ? "Ends " + ago((ends - now) / 1000)
          : "Ended " + ago((ends - now) / 1000);
        countdown.textContent = ". " + text + ".";
        countdown.hidden = false;
      });
    };
    if (note && readersTime(new Date())) {
      note.textContent += " Beside them, in your own time zone (" + readerZone + ").";
    }
    tell();
    if (document.querySelector("[data-relative]")) { setInterval(tell, 30000); }
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", times);
  } else {
    times();
  }

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

  // The metric charts, slid on to the reader's clock: the window published ends with the
  // newest value's bucket (the file stays as it is while no data arrives). Points that left
  // the window leave the line, the table and the average; ticks the server drew past the end
  // come in. The scale stays as published.
  var number = function (value, figure) {
    var places = parseInt(figure.dataset.decimals, 10) || 0;
    return value.toLocaleString("en-US", {
      minimumFractionDigits: places, maximumFractionDigits: places
    }) + (figure.dataset.suffix || "");
  };
  var slide = function (figure) {
    var data = figure.dataset;
    if (!data.end) { return; }
    var seconds = +data.seconds, width = +data.bucketSeconds;
    var end = Math.max(+data.end, (Math.floor(Date.now() / 1000 / width) + 1) * width);
    var start = end - seconds;
    var percent = function (at) { return Math.round((at - start) / seconds * 100000) / 1000; };
    var kept = [];
    figure.querySelectorAll("tbody tr").forEach(function (row) {
      var at = Date.parse(row.querySelector("time").dateTime) / 1000;
      row.hidden = at < start;
      row.dataset.x = percent(at + width / 2);
      if (!row.hidden) { kept.push(row); }
    });
    figure.querySelectorAll("[data-at]").forEach(function (tick) {
      var x = percent(+tick.dataset.at);
      tick.classList.toggle("metric-later", x < 0 || x > 100);
      tick.setAttribute(tick.tagName === "line" ? "x1" : "x", x + "%");
      if (tick.tagName === "line") { tick.setAttribute("x2", x + "%"); }
      else { tick.setAttribute("text-anchor", x < 6 ? "start" : x > 94 ? "end" : "middle"); }
    });
    var inner = figure.querySelector(".metric-chart svg");
    var across = inner.viewBox.baseVal.width / 100;
    var steps = kept.map(function (row) {
      return Math.round(row.dataset.x * across * 100) / 100 + "," + row.dataset.y;
    });
    var line = inner.querySelector(".metric-line"), area = inner.querySelector(".metric-area");
    var baseline = data.baseline;
    if (line) { line.setAttribute("d", steps.length > 1 ? "M" + steps.join(" L") : ""); }
    if (area) {
      var first = steps.length > 1 ? steps[0].split(",")[0] : 0;
      var last = steps.length > 1 ? steps[steps.length - 1].split(",")[0] : 0;
      area.setAttribute("d", steps.length > 1
        ? "M" + first + "," + baseline + " L" + steps.join(" L") + " L" + last + "," + baseline + " Z"
        : "");
    }
    var dots = figure.querySelectorAll(".metric-point");
    dots.forEach(function (dot, index) {
      var row = figure.querySelectorAll("tbody tr")[index];
      dot.setAttribute("cx", row.dataset.x + "%");
      dot.classList.toggle("metric-later", row.hidden);
    });
    var average = figure.closest(".metric").querySelector(".metric-average");
    var sum = kept.reduce(function (total, row) { return total + parseFloat(row.dataset.average); }, 0);
    average.textContent = kept.length ? "Average " + number(sum / kept.length, figure) : "No data";
  };

  // The metric charts: the value nearest the pointer, or the one the arrow keys reach once
  // the chart has the focus, from the chart's own table.
  document.querySelectorAll(".metric-figure").forEach(function (figure) {
    var plot = figure.querySelector(".metric-plot");
    var rows = figure.querySelectorAll("tbody tr");
    slide(figure);
    if (!plot || !rows.length) { return; }
    var read = function () {
      return Array.prototype.filter.call(rows, function (row) { return !row.hidden; })
        .map(function (row) {
          return {
            x: parseFloat(row.dataset.x),
            y: parseFloat(row.dataset.y),
            text: row.cells[0].textContent + ": " + row.cells[1].textContent
          };
        });
    };
    var points = read();
    setInterval(function () {
      slide(figure);
      points = read();
      current = clamp(current, 0, points.length - 1);
    }, 60000);
    var tip = plot.querySelector(".metric-tip");
    var cursor = plot.querySelector(".metric-cursor");
    var marker = plot.querySelector(".metric-marker");
    var live = figure.querySelector(".metric-live");
    var name = figure.closest(".metric").querySelector("h3").textContent;
    var current = points.length - 1;
    var show = function (index, announce) {
      var point = points[index];
      if (!point) { return; }  // every value left the window
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
