// The payment page's enhancement (src/modules/checkouts/pages.ts): the page works without it
// (its form posts to the server); with it, the amounts follow the payer's choices at once
// and the Pay button starts the checkout through the public API, then follows its next step.
(function () {
  'use strict';
  var form = document.getElementById('checkout');
  if (!form || !window.fetch) return;
  var token = form.getAttribute('data-public-token');
  var currency = form.getAttribute('data-currency');
  var digits = Number(form.getAttribute('data-digits'));
  var api = '/api/v1/public/payment-links/' + encodeURIComponent(token);
  // One key per page: a Pay pressed twice (or retried after a network error) starts one checkout.
  var idempotencyKey = (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Date.now()) + Math.random();
  var format;
  try {
    format = new Intl.NumberFormat(document.documentElement.lang || 'en', { style: 'currency', currency: currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  } catch (e) {
    format = { format: function (n) { return n.toFixed(digits) + ' ' + currency; } };
  }

  function value(name) {
    var field = form.elements.namedItem(name);
    if (field && typeof field.value === 'string') return field.value.trim();
    return '';
  }
  function installments() {
    var checked = form.querySelector('input[name="installments"]:checked');
    return checked ? Number(checked.value) : 1;
  }
  function showErrors(errors, message) {
    var shown = false;
    form.querySelectorAll('[data-error-for]').forEach(function (p) {
      var list = errors && errors[p.getAttribute('data-error-for')];
      p.textContent = list ? list.join(' ') : '';
      p.hidden = !list;
      if (list) shown = true;
    });
    var general = form.querySelector('.error[role="alert"]');
    if (!general) {
      general = document.createElement('p');
      general.className = 'error';
      general.setAttribute('role', 'alert');
      form.insertBefore(general, form.firstChild);
    }
    general.textContent = !shown && message ? message : '';
    general.hidden = !general.textContent;
  }
  function post(path, body, headers) {
    return fetch(api + path, {
      method: 'POST',
      headers: Object.assign({ 'Content-Type': 'application/json', Accept: 'application/json' }, headers || {}),
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (json) { return { status: response.status, body: json }; });
    });
  }
  function couponCode() {
    var code = value('coupon_code');
    return code ? code : undefined;
  }
  // The amounts and every installment option come from the page itself, posted as the form
  // posts without JavaScript: one rendering of the prices (after a coupon too), whichever way.
  function showQuoted(fresh) {
    ['subtotal', 'discount', 'interest', 'total'].forEach(function (name) {
      var dd = form.querySelector('[data-amount="' + name + '"]');
      var twin = fresh.querySelector('[data-amount="' + name + '"]');
      if (dd && twin) dd.textContent = twin.textContent;
    });
    // Each option's text is replaced in place, so that focus stays on the radio the payer is on.
    form.querySelectorAll('input[name="installments"]').forEach(function (input) {
      var twin = fresh.querySelector('input[name="installments"][value="' + input.value + '"]');
      if (twin && twin.nextElementSibling && input.nextElementSibling) input.nextElementSibling.textContent = twin.nextElementSibling.textContent;
    });
  }
  function errorsIn(fresh) {
    var errors = {};
    fresh.querySelectorAll('[data-error-for]').forEach(function (p) {
      if (p.textContent) errors[p.getAttribute('data-error-for')] = [p.textContent];
    });
    return errors;
  }
  var latest = 0;
  function quote() {
    var asked = ++latest;
    var body = new URLSearchParams();
    body.set('action', 'quote');
    body.set('installments', String(installments()));
    if (couponCode()) body.set('coupon_code', couponCode());
    return fetch(window.location.pathname, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html' }, body: body.toString() })
      .then(function (response) {
        return response.text().then(function (html) { return { status: response.status, page: new DOMParser().parseFromString(html, 'text/html') }; });
      })
      .then(function (r) {
        if (asked !== latest) return;
        var fresh = r.page.getElementById('checkout');
        if (r.status === 200 && fresh) { showErrors(null); showQuoted(fresh); return; }
        if (r.status === 422 && fresh) {
          var general = fresh.querySelector('.error[role="alert"]');
          showErrors(errorsIn(fresh), general ? general.textContent : '');
          return;
        }
        var said = r.page.querySelector('main p');
        showErrors(null, said ? said.textContent : 'The amounts could not be updated; try again in a moment.');
      })
      .catch(function () { showErrors(null, 'The amounts could not be updated; check your connection.'); });
  }

  form.addEventListener('change', function (event) {
    if (event.target && event.target.name === 'installments') quote();
  });
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var action = event.submitter && event.submitter.value;
    if (action !== 'pay') { quote(); return; }
    var button = event.submitter;
    button.disabled = true;
    var payer = { name: value('name'), email: value('email') };
    if (form.elements.namedItem('tax_id')) payer.tax_id = value('tax_id');
    var body = { installments: installments(), coupon_code: couponCode(), payer: payer };
    var method = form.querySelector('input[name="payment_method"]:checked');
    if (method) body.payment_method = method.value;
    post('/checkouts', body, { 'Idempotency-Key': idempotencyKey })
      .then(function (r) {
        if (r.status === 201 || r.status === 200) {
          var result = '/pay/checkouts/' + encodeURIComponent(r.body.checkout_id);
          // A Pix code is shown on the result page itself; anything else is the provider's page (or ours that leads there).
          var next = r.body.next_action && r.body.next_action.type !== 'pix' ? r.body.next_action.url : result;
          window.location.assign(next);
          return;
        }
        button.disabled = false;
        // A refused checkout may be retried with corrected fields: a new request, a new key.
        idempotencyKey = (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : String(Date.now()) + Math.random();
        showErrors(r.body.errors, r.body.message);
      })
      .catch(function () {
        button.disabled = false;
        showErrors(null, 'The payment could not be started; check your connection and try again.');
      });
  });
})();

// The Pix code's copy button (the result page): the code goes to the clipboard, and the button says so.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button.copy[data-copy]') : null;
  if (!button) return;
  const field = document.getElementById(button.getAttribute('data-copy'));
  if (!field) return;
  field.select();
  const done = () => { button.textContent = 'Copied'; };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, () => document.execCommand('copy') && done());
  else if (document.execCommand('copy')) done();
});
