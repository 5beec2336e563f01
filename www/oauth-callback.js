// @ts-check
// The script of oauth-callback.html, the page the authorization server
// redirects to. It hands this page's URL (which carries the code and state,
// or an error) back to the mcp-edge flow that started the sign-in:
//
// - popup: postMessage({type: "mcp-edge:oauth-callback", url}) to the
//   opener, with this page's own origin as the target (so it reaches only a
//   same-origin opener), and the same message on the BroadcastChannel
//   "mcp-edge-oauth:<state>" (for when the authorization server cut the
//   popup off from its opener); then the window closes itself.
// - redirect: the flow waits in sessionStorage under
//   "mcp-edge:pending:<state>"; the URL is recorded there and the browser
//   goes back to the page that started it, whose McpClient.connect finishes.
//
// Text from the URL is only ever shown through textContent.
(function () {
  'use strict';
  var TYPE = 'mcp-edge:oauth-callback';
  var url = location.href;
  var params = new URLSearchParams(location.search);
  var state = params.get('state') || '';
  var message = { type: TYPE, url: url };
  var status = document.getElementById('status');

  function say(text) {
    if (status) status.textContent = text;
  }

  // Redirect mode: this tab started the flow and left for the authorization
  // page. (Popup flows never keep a pending entry.)
  var key = 'mcp-edge:pending:' + state;
  var pending = null;
  try {
    pending = state ? sessionStorage.getItem(key) : null;
  } catch (error) {
    pending = null;
  }
  if (pending) {
    try {
      var stored = JSON.parse(pending);
      stored.redirected = url;
      sessionStorage.setItem(key, JSON.stringify(stored));
      var back = new URL(typeof stored.returnTo === 'string' && stored.returnTo ? stored.returnTo : '/', location.href);
      if (back.origin === location.origin) {
        say('Signed in. Going back…');
        location.replace(back.href);
        return;
      }
    } catch (error) {
      say('The sign-in could not be handed back: ' + String(error && error.message ? error.message : error));
      return;
    }
  }

  var delivered = false;
  try {
    if (window.opener && !window.opener.closed) {
      window.opener.postMessage(message, location.origin);
      delivered = true;
    }
  } catch (error) {
    // An opener on another origin: postMessage with our origin as target
    // does not reach it, which is what we want.
  }
  if (state && typeof BroadcastChannel === 'function') {
    try {
      var channel = new BroadcastChannel('mcp-edge-oauth:' + state);
      channel.postMessage(message);
      channel.close();
      delivered = true;
    } catch (error) {
      // No BroadcastChannel here: postMessage alone.
    }
  }

  var refused = params.get('error');
  if (refused) {
    say('The sign-in was not completed (' + refused + '). You can close this window.');
  } else if (delivered) {
    say('Signed in. You can close this window.');
  } else {
    say('This page finishes a sign-in started elsewhere; there is nothing to do here.');
    return;
  }
  // Let the messages leave before the window goes.
  setTimeout(function () {
    window.close();
  }, 100);
})();
