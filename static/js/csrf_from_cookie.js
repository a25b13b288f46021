// A form marked data-csrf-cookie carries no token of its own: it takes the requester's from the CSRF cookie as it is
// sent. The 404 page's sign-out form is one, as that page must be the same bytes for whatever is missing or withheld,
// and the token `{% csrf_token %}` writes is masked afresh on every page.
document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-csrf-cookie]");
  if (!form) return;
  const prefix = `${form.dataset.csrfCookie}=`;
  const cookie = document.cookie.split("; ").find((pair) => pair.startsWith(prefix));
  form.querySelector("input[name=csrfmiddlewaretoken]").value = cookie ? decodeURIComponent(cookie.slice(prefix.length)) : "";
});
