/* A form's components under their groups (component_choices.py): the "whole group" choice
   (a checkbox, or a status select) gives its choice to every member, and a member changed
   by hand unchecks the whole group when it no longer holds. Inline on the public subscribe
   form, and part of the console's script; without it the server reads the group's choice. */
(function () {
  "use strict";
  document.querySelectorAll("[data-group-choice]").forEach(function (group) {
    var whole = group.querySelector("[data-whole-group]");
    if (!whole) { return; }
    var members = Array.prototype.filter.call(
      group.querySelectorAll("input[type=checkbox], select"),
      function (field) { return field !== whole; }
    );
    whole.addEventListener("change", function () {
      members.forEach(function (member) {
        if (whole.type === "checkbox") { member.checked = whole.checked; }
        else if (whole.value) { member.value = whole.value; }
      });
    });
    if (whole.type !== "checkbox") { return; }
    members.forEach(function (member) {
      member.addEventListener("change", function () {
        whole.checked = members.every(function (each) { return each.checked; });
      });
    });
  });
})();
