/**
 * Rendering of template variants (Handlebars, isolated): pure, shared by the
 * dispatchers that send and management's preview, so a preview is what is sent.
 */
export * from './template-engine';
export * from './render-content';
export * from './rendered-content';
export * from './translations';
export * from './mjml';
