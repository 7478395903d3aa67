export { PreferenceCategoriesController } from './preference-categories.controller';
export { PreferenceCategoryStore } from './preference-category-store';
export { CategoryTranslationsController } from './category-translations.controller';
export { CategoryTranslationStore } from './category-translation-store';
export { CreateCategoryTranslations1763701200000 } from './migrations/1763701200000-create-category-translations';
export { CategoryTranslationVersions1763701210000 } from './migrations/1763701210000-category-translation-versions';
