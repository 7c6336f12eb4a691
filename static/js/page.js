// @ts-check
/* What every page does. A success notice on a live table's page says what was just done;
   the table goes on dealing its next hands, so the notice goes after a while. Errors stay,
   and every other page keeps its notices (a cashier reads back what was booked, a newcomer
   their next step). */

const NOTICE_SECONDS = 8;

if (document.querySelector("#table-app, #poker-app")) {
  setTimeout(() => {
    document.querySelectorAll(".flash-list .flash-success").forEach((item) => {
      const list = item.parentNode;
      item.remove();
      if (list && !list.children.length) /** @type {Element} */ (list).remove();
    });
  }, NOTICE_SECONDS * 1000);
}
