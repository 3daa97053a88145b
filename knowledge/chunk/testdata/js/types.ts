import type { Thing } from './thing';

export interface Options {
  name: string;
  nested: { a: number };
}

export type Handler<T> = (opts: Options) => Promise<T>;

type Union =
  | 'a'
  | 'b';

export enum Color {
  Red = 'RED',
  Green = 'GREEN',
}

const enum Flags { None = 0 }

declare module 'express' {
  interface Request { user?: string }
}

export namespace Geometry.Shapes {
  export const pi = 3.14;
}

@Component({
  selector: 'app-root',
  template: `<div>{{ title }}</div>`,
})
export class AppComponent implements OnInit {
  @Input() title = 'app';

  ngOnInit(): void {}
}

export abstract class Repo<T extends { id: string }> {
  abstract find(id: string): T;
}

export type { Thing };
export * from './other';
