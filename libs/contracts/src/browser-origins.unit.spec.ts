import { normalizeOrigin } from './browser-origins';

describe('normalizeOrigin', () => {
  it.each([
    ['https://App.Example.com', 'https://app.example.com'],
    ['https://app.example.com/', 'https://app.example.com'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
  ])('reads %s as the Origin header %s', (text, origin) => {
    expect(normalizeOrigin(text)).toBe(origin);
  });

  it.each(['app.example.com', 'https://app.example.com/path', 'https://app.example.com?x=1', 'ftp://example.com', 'https://user:pw@example.com', '*', 'null', ''])(
    'refuses %s',
    (text) => {
      expect(normalizeOrigin(text)).toBeNull();
    },
  );
});
