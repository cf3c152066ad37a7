// Delete with a preview: objects.delete {dryRun: true} runs the delete and rolls it back,
// so the dialog shows exactly what the delete rules would do (the cascade, the objects
// that would lose a link) or the deny rule that refuses it, before anything is deleted.

import { h, replace, icon, plural } from "../dom.js";
import { call, RPCError } from "../rpc.js";
import { parseID } from "../model.js";
import { cleanMessage } from "./filterbox.js";
import { tableHash } from "./table.js";

const SHOWN_PER_GROUP = 12;

/** Ids grouped by entity, in first-seen order: [[entity, [ids]]]. */
function byEntity(ids) {
  const groups = new Map();
  for (const id of ids) {
    const e = parseID(id)?.entity || "?";
    if (!groups.has(e)) groups.set(e, []);
    groups.get(e).push(id);
  }
  return [...groups];
}

function idList(ids, close) {
  return byEntity(ids).map(([entity, list]) =>
    h("li", { class: "id-group" },
      h("span", { class: "id-group-entity" }, entity, h("span", { class: "id-group-count" }, ` × ${list.length}`)),
      h("span", { class: "id-group-ids" },
        list.slice(0, SHOWN_PER_GROUP).map((id) => h("a", { class: "id-chip", href: `#/o/${id}`, onclick: close }, id)),
        list.length > SHOWN_PER_GROUP ? h("span", { class: "id-more" }, `and ${list.length - SHOWN_PER_GROUP} more`) : null)));
}

export async function openDeleteDialog(app, id) {
  const body = h("div", { class: "modal-body" }, h("p", { class: "loading" }, "Working out what the delete rules would do…"));
  const actions = h("div", { class: "modal-actions" });
  const dialog = h("dialog", { class: "modal", "aria-labelledby": "delete-title", dataset: { dialog: "delete" } },
    h("h2", { id: "delete-title" }, icon("trash"), `Delete ${id}?`),
    body,
    actions);
  const close = () => { dialog.close(); dialog.remove(); };
  dialog.addEventListener("cancel", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  const cancel = h("button", { type: "button", class: "btn", onclick: close }, "Cancel");
  replace(actions, cancel);

  let preview;
  try {
    preview = await call("objects.delete", { id, dryRun: true });
  } catch (e) {
    showRefusal(e);
    return;
  }
  const others = preview.deleted.filter((x) => x !== id);
  const updated = preview.updated || [];
  replace(body,
    h("div", { class: "preview", dataset: { preview: "ok" } },
      h("p", { class: "preview-lead" }, others.length
        ? [`Deleting ${id} also deletes `, h("strong", {}, plural(others.length, "object")), " through cascade rules:"]
        : `Only ${id} is deleted: no cascade rule reaches another object.`),
      others.length ? h("ul", { class: "id-groups cascade", dataset: { list: "cascade" } }, idList(others, close)) : null,
      updated.length
        ? [h("p", { class: "preview-lead" }, h("strong", {}, plural(updated.length, "object")), " stay and lose their link to what is deleted (nullify):"),
          h("ul", { class: "id-groups nullify", dataset: { list: "nullify" } }, idList(updated, close))]
        : null,
      h("p", { class: "preview-note" }, "This preview ran the delete and rolled it back: it is exactly what will happen if nothing changes meanwhile.")));
  const confirm = h("button", { type: "button", class: "btn btn-danger", dataset: { action: "confirm-delete" }, onclick: doDelete },
    icon("trash"), `Delete ${plural(preview.deleted.length, "object")}`);
  replace(actions, cancel, confirm);
  confirm.focus();

  async function doDelete() {
    confirm.disabled = true;
    try {
      const result = await call("objects.delete", { id });
      close();
      app.toast(`Deleted ${plural(result.deleted.length, "object")}`);
      app.refreshInfo();
      app.go(tableHash(parseID(id).entity));
    } catch (e) {
      showRefusal(e);
    }
  }

  function showRefusal(e) {
    const d = (e instanceof RPCError && e.data) || {};
    if (e instanceof RPCError && e.kind === "deleteDenied") {
      const blocking = d.blocking || [];
      replace(body, h("div", { class: "preview refused", dataset: { preview: "denied" } },
        h("p", { class: "preview-lead" }, icon("warn"), "The delete is refused: relationship ",
          h("code", {}, `${parseID(d.id)?.entity || ""}.${d.relationship}`), ` of ${d.id} has delete rule `, h("code", {}, "deny"),
          ` and still holds ${plural(blocking.length, "object")}:`),
        h("ul", { class: "id-groups", dataset: { list: "blocking" } }, idList(blocking, close)),
        h("p", { class: "preview-note" }, "Delete those objects, or move them elsewhere, first. Nothing was deleted.")));
    } else {
      replace(body, h("div", { class: "preview refused", dataset: { preview: "error" } },
        h("p", { class: "preview-lead" }, icon("warn"), e instanceof RPCError ? cleanMessage(e.message) : e.message),
        h("p", { class: "preview-note" }, "Nothing was deleted.")));
    }
    replace(actions, h("button", { type: "button", class: "btn", onclick: close }, "Close"));
  }
}
