export { PreferenceCategoriesController } from './preference-categories.controller';
export { PreferenceCategoryStore } from './preference-category-store';
