import React from 'react';

// Greeting says hello; its text has an apostrophe.
export function Greeting({ name }) {
  return (
    <div className="greeting">
      <p>Don't panic, {name}!</p>
      <a href="http://example.com/{x}">link</a>
    </div>
  );
}

export const Farewell = () => <p>It's over {"}"}</p>;
