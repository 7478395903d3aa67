/**
 * The email preview's frame (`/console/mail-frame.html`, served with a policy of its own:
 * inline styles and remote images, as an email needs, and no script but this one). The
 * console posts the rendered HTML here; it goes into a sandboxed iframe without scripts,
 * as a mail client shows it. Only the console (the parent) is listened to.
 */
const mail = document.getElementById('mail') as HTMLIFrameElement;
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (event.source !== window.parent || event.origin !== window.location.origin) return;
  const data = event.data as { html?: unknown } | null;
  if (data && typeof data.html === 'string') mail.srcdoc = data.html;
});
window.parent.postMessage({ mailFrameReady: true }, window.location.origin);
